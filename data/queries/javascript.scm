; JavaScript (also inherited by typescript.scm and tsx.scm).
; Definitions: @definition.<kind> on the whole node, @name on its name. For a function assigned to
; a name (`const f = () => {}`, `handler = function () {}`) the definition is the function itself:
; its parameters and body are the ones the hashes and signature want.
(class_declaration name: (_) @name) @definition.class
(class name: (_) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_body (method_definition name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @definition.method)
(object (method_definition name: (property_identifier) @name) @definition.function)

(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @definition.function)
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @definition.function)
(assignment_expression
  left: (member_expression
          object: [(identifier) (member_expression)] @scope
          property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)] @definition.function)

; Exported values that are not functions are part of the module's API too.
(export_statement
  declaration: (lexical_declaration
                 (variable_declarator name: (identifier) @name) @definition.const))

; References: calls by name, with the qualifier (`a.b` in `a.b.c()`) when there is one.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression
                             object: (_) @qualifier
                             property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression
                               object: (_) @qualifier
                               property: (property_identifier) @name)) @reference.call

; Imports: ES modules, re-exports, require() and dynamic import(); read by the JS import reader.
(import_statement source: (string) @import.module) @import
(export_statement source: (string) @import.module) @import
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) @import.module)
  (#eq? @_require "require")) @import
(call_expression
  function: (import)
  arguments: (arguments . [(string) (template_string)] @import.module)
  (#not-match? @import.module "[$][{]")) @import
(call_expression
  function: (import)
  arguments: (arguments . (comment) . [(string) (template_string)] @import.module)
  (#not-match? @import.module "[$][{]")) @import

; not inherited: below are JavaScript's own node types (TypeScript's differ).
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression) (generator_function)] @definition.method)
; JSX: a capitalised element is a component, used like a call.
(jsx_self_closing_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
(jsx_opening_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
