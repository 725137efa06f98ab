; C. A function's name sits inside its declarator, under any pointer declarators of the return type.
(function_definition
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (pointer_declarator declarator: (pointer_declarator
                  declarator: (function_declarator declarator: (identifier) @name)))]) @definition.function

; A function a macro defines, as C's grammar reads it: libuv's `TEST_IMPL(loop_alive) { ... }` (which defines
; run_test_loop_alive) is a function of the type TEST_IMPL whose name is in parentheses, with no parameters. It is
; the test loop_alive. (C++'s grammar reads a function TEST_IMPL: language_rules.macro_defined_name.)
(function_definition
  type: (type_identifier) @macro
  declarator: (parenthesized_declarator . (identifier) @name .)
  (#match? @macro "^[A-Z][A-Z0-9_]*[A-Z0-9]$")) @definition.function

; Prototypes are the API of a header (the extractor keeps only those at file level, under #if and
; extern "C"); a prototype of a function defined in the same file gives way to the definition.
(declaration
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
               (pointer_declarator declarator: (pointer_declarator
                  declarator: (function_declarator declarator: (identifier) @name)))]) @definition.function

; A header the grammar reads as one error (indexer/parsing/language_rules.is_definition) may read its prototypes as
; fields of a struct it never opened: a field that is a function is one of those.
(ERROR
  (field_declaration
    declarator: [(function_declarator declarator: (field_identifier) @name)
                 (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
                 (pointer_declarator declarator: (pointer_declarator
                    declarator: (function_declarator declarator: (field_identifier) @name)))]) @definition.function)

; `typedef struct { ... } name;` is the struct `name`; a named struct inside a typedef is itself.
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.union
(type_definition type: (enum_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.enum
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition declarator: (function_declarator
  declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type

; Macros with a value (an include guard's bare #define is no symbol).
(preproc_def name: (identifier) @name value: (_)) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; References: calls by name; through a struct field or pointer the qualifier is the object.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression argument: (_) @qualifier field: (field_identifier) @name)) @reference.call

; `#include "x.h"` (and <x.h>, marked as a system include by the reader).
(preproc_include path: (_) @import.module) @import
