; Rust. Methods sit in impl blocks: `impl Point { fn new() }` gives the impl (`impl Point`, or
; `impl Area for Point`) and the method `Point.new`, named by the impl's type: `&'a mut Vec<T>` is Vec, and a
; type with no name of its own is named as written (`impl Buf for [u8]`: `[u8].advance`), never a free function.
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.union
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.const
(static_item name: (identifier) @name) @definition.variable
(mod_item name: (identifier) @name body: (_)) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(impl_item
  type: [(type_identifier) @name
         (generic_type type: (type_identifier) @name)
         (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
         (scoped_type_identifier name: (type_identifier) @name)
         (reference_type type: (type_identifier) @name)
         (reference_type type: (generic_type type: (type_identifier) @name))
         (reference_type type: (generic_type type: (scoped_type_identifier name: (type_identifier) @name)))
         (reference_type type: (scoped_type_identifier name: (type_identifier) @name))
         (reference_type type: [(primitive_type) (array_type) (tuple_type) (dynamic_type) (bounded_type)] @name)
         (primitive_type) @name
         (array_type) @name
         (tuple_type) @name
         (unit_type) @name
         (dynamic_type) @name
         (bounded_type) @name
         (pointer_type) @name
         (function_type) @name]) @definition.impl

; References: `f()`, `a::b::f()` (split by the extractor), `x.m()`, `Type::new()`, macros.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (scoped_identifier) @name) @reference.call
(call_expression function: (field_expression value: (_) @qualifier field: (field_identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (scoped_identifier) @name)) @reference.call
(call_expression function: (generic_function
  function: (field_expression value: (_) @qualifier field: (field_identifier) @name))) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation macro: (scoped_identifier) @name) @reference.call

; Locals a function binds to one name (`let conn = Conn::new(io);`): what a call on them is (rustfields.py).
(let_declaration pattern: (identifier)) @local.binding
(let_declaration pattern: (ref_pattern (identifier))) @local.binding

; Imports: `use` trees (read by the Rust reader), `mod name;` (a file of the crate), extern crates.
(use_declaration argument: (_) @import.module) @import
(mod_item name: (identifier) @import.module !body) @import
(extern_crate_declaration name: (identifier) @import.module) @import
