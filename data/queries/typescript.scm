; inherits: javascript
; TypeScript additions: interfaces, type aliases, enums, abstract classes, namespaces, signatures.
(abstract_class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.namespace
(module name: [(identifier) (nested_identifier)] @name) @definition.module
(method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(function_signature name: (identifier) @name) @definition.function
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression) (generator_function)] @definition.method)

; `import fs = require("fs")`
(import_require_clause source: (string) @import.module) @import
; `declare module "vitest/browser" { ... }`: a module augmented (or described) here depends on it
(ambient_declaration (module name: (string) @import.module)) @import
