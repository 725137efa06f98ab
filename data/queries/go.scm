; Go. A method's receiver type is its scope: `func (p *Point) Area()` is `Point.Area`.
(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list
              (parameter_declaration
                type: [(type_identifier) @scope
                       (pointer_type (type_identifier) @scope)
                       (generic_type type: (type_identifier) @scope)
                       (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @name) @definition.method
(method_elem name: (field_identifier) @name) @definition.method

; Types: the first pattern that matches a node decides its kind.
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

; Package-level constants and variables (not those inside function bodies).
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.const))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

; References: `f()`, `pkg.F()` / `x.M()` with the qualifier.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression operand: (_) @qualifier field: (field_identifier) @name)) @reference.call

; Imports: one per spec; the reader takes the alias as the imported name.
(import_spec path: (_) @import.module) @import
