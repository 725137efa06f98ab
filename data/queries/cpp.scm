; inherits: c
; C++ on top of C: methods (in the class, and out of it as `Foo::bar`), classes, namespaces,
; templates, operators and destructors. A qualified name (`geo::Shape::area`) is split by the
; extractor into its scope and name, so `void Foo::bar() {}` is `Foo.bar`.
(function_definition
  declarator: [(function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
               (pointer_declarator declarator: (function_declarator
                  declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
               (reference_declarator (function_declarator
                  declarator: [(identifier) (field_identifier) (operator_name)] @name))]) @definition.function
(function_definition
  declarator: [(function_declarator declarator: (qualified_identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
               (pointer_declarator declarator: (pointer_declarator
                  declarator: (function_declarator declarator: (qualified_identifier) @name)))
               (reference_declarator (function_declarator declarator: (qualified_identifier) @name))]) @definition.method

; Declarations inside a class body: methods declared here, defined elsewhere (or pure virtual).
(field_declaration
  declarator: [(function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
               (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
               (reference_declarator (function_declarator
                  declarator: [(field_identifier) (operator_name)] @name))]) @definition.function
(declaration
  declarator: (function_declarator declarator: [(destructor_name) (operator_name)] @name)) @definition.function
; A prototype returning a reference or a pointer (`Emitter& operator<<(Emitter& out, const Node& node);`)
(declaration
  declarator: [(reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
               (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))]) @definition.function

(class_specifier name: [(type_identifier) (qualified_identifier) (template_type)] @name body: (_)) @definition.class
(struct_specifier name: [(qualified_identifier) (template_type)] @name body: (_)) @definition.struct
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type

; Calls: `a::b()` (the extractor splits the qualified name), `obj.m()` / `p->m()`, `f<T>()`, `new T()`.
(call_expression function: (qualified_identifier) @name) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(new_expression type: (type_identifier) @name) @reference.call
; `&DBImpl::BGWork` handed to `env_->Schedule(...)`: whoever gets it calls it, so taking it stands for that call.
(pointer_expression argument: (qualified_identifier) @name) @reference.call
; Operators a class may define, called as C++ calls them (`out << node`, `a == b`, `total += x`, `node["key"]`, `*it`,
; `++it`, `!ok`), the operand they are called on as the qualifier: indexer/parsing/cppfields.py names them `operator<<`.
(binary_expression left: (_) @qualifier operator: _ @name right: (_)) @reference.call
(assignment_expression left: (_) @qualifier operator: _ @name right: (_)) @reference.call
(subscript_expression argument: (_) @qualifier indices: (subscript_argument_list "[" @name)) @reference.call
(unary_expression operator: _ @name argument: (_) @qualifier) @reference.call
(update_expression operator: _ @name argument: (_) @qualifier) @reference.call
(pointer_expression operator: "*" @name argument: (_) @qualifier) @reference.call
