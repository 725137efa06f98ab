"""Go calls as Go's types say (indexer/parsing/gorefs.py, store/gocalls.py): a method call on a value whose
type the code gives runs that type's method, a value of another module's type runs none of ours, an import
is named by its alias, and a function handed on as a value is reached through the function handing it on."""

from __future__ import annotations

import sqlite3

import pytest
from codeannals.store import callgraph, queries, testmap

from .conftest import Repo, caller_bases

GO_MOD = "module example.com/m\n\ngo 1.21\n"
SHAPES = (
    "package shapes\n\n"
    "type Square struct{ side int }\n\n"
    "type Circle struct{ r int }\n\n"
    "type Shape interface{ Area() int }\n\n"
    "func NewSquare(side int) *Square { return &Square{side: side} }\n\n"
    "func Load(name string) (*Circle, error) { return &Circle{r: len(name)}, nil }\n\n"
    "func (s *Square) Area() int { return s.side * s.side }\n\n"
    "func (s *Square) Double() int { return 2 * s.Area() }\n\n"
    "func (c *Circle) Area() int { return 3 * c.r * c.r }\n\n"
    "func Total(shapes []Shape) int {\n\tt := 0\n\tfor _, s := range shapes {\n"
    "\t\tt += s.Area()\n\t}\n\treturn t\n}\n"
)


@pytest.fixture
def shapes(repo: Repo, store: sqlite3.Connection) -> sqlite3.Connection:
    from codeannals.indexer.run import index_tree

    repo.write("go.mod", GO_MOD)
    repo.write("shapes/shapes.go", SHAPES)
    repo.write(
        "shapes/default.go",
        "package shapes\n\nvar Default = NewSquare(1)\n\ntype Unit int\n\nconst Meter Unit = 1\n\n"
        'func (u Unit) Name() string { return "unit" }\n',
    )
    repo.write(
        "shapes/use.go",
        "package shapes\n\nfunc DefaultArea() int { return Default.Area() + Double(0) }\n\n"
        "func UnitName() string { return Meter.Name() }\n\n"
        "func Apply(f func() int) int { return f() }\n\n"
        "func Later() int { sq := NewSquare(2); return Apply(sq.Area) }\n",
    )
    repo.write("shapes/double.go", "package shapes\n\nfunc Double(x int) int { return 2 * x }\n")
    repo.write(
        "shapes/label.go",
        'package shapes\n\nimport "strings"\n\ntype Labeled struct {\n\t*Square\n\tlabel string\n}\n\n'
        "func (l Labeled) Show() int { return l.Area() }\n\n"
        'type Text struct{ strings.Builder }\n\nfunc (t *Text) Put() { t.WriteString("x") }\n\n'
        "type Log struct{}\n\nfunc (g *Log) WriteString(s string) {}\n",
    )
    repo.write(
        "shapes/shapes_test.go",
        'package shapes\n\nimport "testing"\n\n'
        "func TestSquare(t *testing.T) {\n\tsq := NewSquare(2)\n\tif sq.Area() != 4 {\n"
        '\t\tt.Errorf("bad")\n\t}\n}\n\n'
        'func TestCircle(t *testing.T) {\n\tc, err := Load("ab")\n\tif err != nil || c.Area() != 12 {\n'
        '\t\tt.Errorf("bad")\n\t}\n}\n\n'
        "func TestEach(t *testing.T) {\n\tvar s Square\n\tcheck := func(s *Circle) { s.Area() }\n"
        "\tcheck(&Circle{})\n\ts.Double()\n}\n",
    )
    repo.write("report/errors.go", "package report\n\nfunc Errorf(format string) string { return format }\n")
    repo.write(
        "cmd/main.go",
        'package main\n\nimport geo "example.com/m/shapes"\n\nfunc main() { geo.NewSquare(1).Area(); run(step) }\n\n'
        "func run(f func() int) int { return f() }\n\nfunc step() int { return 1 }\n",
    )
    index_tree(repo.root, store)
    return store


def test_a_method_call_on_a_typed_value_runs_that_types_method_and_no_other(shapes: sqlite3.Connection) -> None:
    """`sq := NewSquare(2); sq.Area()` runs Square.Area (NewSquare returns a *Square); `c, err := Load(..)`
    takes Load's first result, a *Circle; a struct embedding a type has its methods; `Default.Area()` where
    another file declares `var Default = NewSquare(1)` is Square's too; a receiver (`s.Area()` in
    Square.Double) is its type; a closure's parameter `s *Circle` is not the function's `var s Square`.
    Before, each `Area()` was a guess at both."""
    assert caller_bases(shapes, "shapes/shapes.go::Square.Area") == {
        "shapes/shapes.go::Square.Double": "method",
        "shapes/shapes_test.go::TestSquare": "method",
        "cmd/main.go::main": "method",
        "shapes/use.go::DefaultArea": "method",  # a package-level variable of another file: NewSquare's result
        "shapes/label.go::Labeled.Show": "method",  # promoted from the embedded *Square
        "shapes/use.go::Later": "named as a value",  # `Apply(sq.Area)`: Apply calls it
        # `for _, s := range shapes` over a `[]Shape`: Shape is an interface, which Square implements
        "shapes/shapes.go::Total": "through an interface",
    }
    assert caller_bases(shapes, "shapes/shapes.go::Circle.Area") == {
        "shapes/shapes_test.go::TestCircle": "method",
        "shapes/shapes_test.go::TestEach": "method",
        "shapes/shapes.go::Total": "through an interface",
    }
    # Go promotes an embedded type's methods: `l.Area()` on a Labeled embedding *Square is Square.Area; on a
    # struct embedding strings.Builder, `t.WriteString` is the standard library's, not Log's.
    assert caller_bases(shapes, "shapes/label.go::Log.WriteString") == {}
    # A typed constant of another file: `const Meter Unit = 1`.
    assert caller_bases(shapes, "shapes/default.go::Unit.Name") == {"shapes/use.go::UnitName": "method"}
    # `Double(0)` in use.go is the package's function: Go calls a method on a value only.
    assert caller_bases(shapes, "shapes/shapes.go::Square.Double") == {"shapes/shapes_test.go::TestEach": "method"}
    found = testmap.tests_for_symbol(shapes, queries.find_symbol(shapes, "shapes/shapes.go::Square.Area"))
    assert {(t.test, t.name_only) for t in found if t.by_call} == {
        ("shapes/shapes_test.go::TestSquare", False),
        ("shapes/shapes_test.go::TestEach", False),  # through Square.Double
    }


def test_a_value_of_another_modules_type_and_an_aliased_import_are_named_as_go_names_them(
    shapes: sqlite3.Connection,
) -> None:
    """`t.Errorf` on a `*testing.T` is the standard library's, never report.Errorf; `geo.NewSquare(1)` after
    `import geo "example.com/m/shapes"` is shapes' NewSquare, and the *Square it returns has Area."""
    assert caller_bases(shapes, "report/errors.go::Errorf") == {}
    assert caller_bases(shapes, "shapes/shapes.go::NewSquare") == {
        "cmd/main.go::main": "imported name",
        "shapes/shapes_test.go::TestSquare": "same package",
        "shapes/default.go::Default": "same package",
        "shapes/use.go::Later": "same package",
    }
    main = queries.find_symbol(shapes, "cmd/main.go::main")
    assert ("shapes/shapes.go::Square.Area", "method") in [
        (c["target"], c["basis"]) for c in callgraph.callees(shapes, main)
    ]


def test_a_function_handed_on_as_a_value_is_reached_through_the_function_handing_it_on(
    shapes: sqlite3.Connection,
) -> None:
    """`run(step)` calls step through run's parameter, which no call graph of names sees: main names step as
    a value, so step's callers include main, and say how."""
    assert caller_bases(shapes, "cmd/main.go::step") == {"cmd/main.go::main": "named as a value"}
    assert caller_bases(shapes, "cmd/main.go::run") == {"cmd/main.go::main": "same file"}


def test_every_test_of_a_go_package_runs_what_its_package_level_variables_and_init_call(
    repo: Repo, store: sqlite3.Connection
) -> None:
    """Go initializes a package before running any of its tests: a function a package-level variable's value
    (in a `var ( ... )` block too) or `init` calls directly is run by every test of the package, however
    little the tests themselves call."""
    from codeannals.indexer.run import index_tree

    repo.write("go.mod", GO_MOD)
    repo.write(
        "conf/conf.go",
        "package conf\n\nfunc Load(name string) string { return name }\n\n"
        "func Register(name string) int { return len(name) }\n\n"
        "func Unused() int { return 0 }\n",
    )
    repo.write("conf/init.go", 'package conf\n\nvar registered int\n\nfunc init() { registered = Register("x") }\n')
    repo.write(
        "conf/conf_test.go",
        'package conf\n\nimport "testing"\n\nvar (\n\tloaded = Load("a")\n)\n\n'
        "func TestOne(t *testing.T) {}\n\nfunc TestTwo(t *testing.T) { _ = loaded }\n",
    )
    index_tree(repo.root, store)

    def tests(symbol_id: str) -> list[tuple[str, str]]:
        found = testmap.tests_for_symbol(store, queries.find_symbol(store, symbol_id), fallback=False)
        return sorted((t.test, t.basis) for t in found if t.by_call)

    assert [t for t, _ in tests("conf/conf.go::Load")] == ["conf/conf_test.go::TestOne", "conf/conf_test.go::TestTwo"]
    [(_, why), _] = tests("conf/conf.go::Register")
    assert "in init, which Go runs when the package initializes" in why
    assert tests("conf/conf.go::Unused") == []


def test_a_fields_declared_type_types_the_calls_on_it(repo: Repo, store: sqlite3.Connection) -> None:
    """`s.store.Get()` runs Store.Get: Server's signature shows its fields (`store *Store`); `s.mu.Lock()` on a
    `sync.Mutex` and `s.client.Do()` on what newClient returns (an `*http.Client`) are the standard library's,
    never the repository's Lock or Do; an embedded field is named by its type (`s.Base.Close()`)."""
    from codeannals.indexer.run import index_tree

    repo.write("go.mod", GO_MOD)
    repo.write(
        "srv/store.go",
        "package srv\n\ntype Store struct{}\n\nfunc (s *Store) Get(k string) string { return k }\n\n"
        'type Cache struct{}\n\nfunc (c *Cache) Get(k string) string { return "" }\n\n'
        "type Base struct{}\n\nfunc (b *Base) Close() {}\n\n"
        "type Door struct{}\n\nfunc (d *Door) Lock() {}\n\nfunc (d *Door) Do() {}\n",
    )
    repo.write(
        "srv/server.go",
        'package srv\n\nimport (\n\t"net/http"\n\t"sync"\n)\n\n'
        "type Server struct {\n\t*Base\n\tstore *Store\n\tmu    sync.Mutex\n\tcache, spare *Cache\n}\n\n"
        "func newClient() *http.Client { return &http.Client{} }\n\n"
        "func (s *Server) Read(k string) string {\n\ts.mu.Lock()\n\tnewClient().Do(nil)\n\ts.Base.Close()\n"
        "\treturn s.store.Get(k) + s.spare.Get(k)\n}\n",
    )
    index_tree(repo.root, store)
    signature = queries.find_symbol(store, "srv/server.go::Server")["signature"]
    assert signature.endswith("{*Base; store *Store; mu sync.Mutex; cache, spare *Cache}"), signature
    read = "srv/server.go::Server.Read"
    assert caller_bases(store, "srv/store.go::Store.Get") == {read: "method"}
    assert caller_bases(store, "srv/store.go::Cache.Get") == {read: "method"}  # `spare`, of `cache, spare *Cache`
    assert caller_bases(store, "srv/store.go::Base.Close") == {read: "method"}
    assert caller_bases(store, "srv/store.go::Door.Lock") == {}
    assert caller_bases(store, "srv/store.go::Door.Do") == {}


def test_a_call_on_an_interface_may_run_each_type_implementing_it(repo: Repo, store: sqlite3.Connection) -> None:
    """`s.Get(k)` on a Store, an interface, calls Store.Get, and on a value of a type implementing Store (all of
    its methods, an embedded interface's included) runs that type's Get: such a call is a caller of the type's
    Get `through an interface`, and its tests say so. A type lacking one of the methods (`half`, no Put)
    implements none of it. The values on the way are typed as Go declares them: what a method returns
    (`r.Lookup(k)` gives an *Entry), an element of a map field (`r.entries[k]`) or a range over it."""
    from codeannals.indexer.run import index_tree
    from codeannals.store import lookups

    repo.write("go.mod", GO_MOD)
    repo.write(
        "kv/kv.go",
        'package kv\n\nimport "net/http"\n\n'
        "type Store interface {\n\tGet(k string) string\n\tPut(k, v string)\n}\n\n"
        "type Named interface{ Name() string }\n\n"
        "type Full interface {\n\tStore\n\tNamed\n}\n\n"
        "type Router interface {\n\thttp.Handler\n\tRoute(p string)\n}\n\n"
        "type Entry struct{ Value Store }\n\n"
        "type Registry struct{ entries map[string]*Entry }\n\n"
        "func (r *Registry) Lookup(k string) *Entry { return r.entries[k] }\n\n"
        "func Use(s Store, k string) string { return s.Get(k) }\n\n"
        'func Both(f Full) string { return f.Name() + f.Get("k") }\n\n'
        'func Serve(r Router) { r.Route("/") }\n\n'
        "func (r *Registry) Read(k string) string { return r.Lookup(k).Value.Get(k) }\n\n"
        "func (r *Registry) Fill(v string) {\n\tfor k, e := range r.entries {\n\t\te.Value.Put(k, v)\n\t}\n}\n\n"
        "func (r *Registry) Peek(k string) string { e := r.entries[k]; return e.Value.Get(k) }\n",
    )
    repo.write(
        "kv/impl.go",
        "package kv\n\ntype memory struct{ m map[string]string }\n\n"
        "func (s *memory) Get(k string) string { return s.m[k] }\n\n"
        "func (s *memory) Put(k, v string) { s.m[k] = v }\n\n"
        'type half struct{}\n\nfunc (h half) Get(k string) string { return "" }\n\n'
        'type whole struct{ memory }\n\nfunc (w whole) Name() string { return "whole" }\n\n'
        "type mux struct{}\n\nfunc (m mux) Route(p string) {}\n",
    )
    repo.write(
        "kv/kv_test.go",
        'package kv\n\nimport "testing"\n\nfunc TestUse(t *testing.T) {\n\tUse(&memory{}, "k")\n}\n\n'
        'func TestDirect(t *testing.T) {\n\tvar s Store = &memory{}\n\ts.Get("k")\n}\n',
    )
    index_tree(repo.root, store)
    # What an interface embeds is in its signature; its methods are symbols of their own.
    assert queries.find_symbol(store, "kv/kv.go::Full")["signature"] == "type Full interface {Store; Named}"
    assert queries.find_symbol(store, "kv/kv.go::Store")["signature"] == "type Store interface"
    via = "through an interface"
    read, peek, fill = "kv/kv.go::Registry.Read", "kv/kv.go::Registry.Peek", "kv/kv.go::Registry.Fill"
    use, both = "kv/kv.go::Use", "kv/kv.go::Both"
    # What the interface declares is what the call calls; an embedded interface's method is the embedded one's.
    called = {c["name"]: (c["target"], c["basis"]) for c in lookups.callees(store, queries.find_symbol(store, both))}
    assert called == {"Name": ("kv/kv.go::Named.Name", "method"), "Get": ("kv/kv.go::Store.Get", "method")}
    assert caller_bases(store, "kv/kv.go::Store.Get") == {
        use: "method",
        both: "method",
        read: "method",  # what Lookup returns: an *Entry, whose Value is a Store
        peek: "method",  # an element of a map field
        "kv/kv_test.go::TestDirect": "method",
    }
    assert caller_bases(store, "kv/kv.go::Store.Put") == {fill: "method"}  # a range over a map field's elements
    # memory has Get and Put: a Store. whole embeds memory (whose Get is whole's too) and adds Name: a Full.
    direct = "kv/kv_test.go::TestDirect"
    assert caller_bases(store, "kv/impl.go::memory.Get") == {use: via, both: via, read: via, peek: via, direct: via}
    assert caller_bases(store, "kv/impl.go::memory.Put") == {fill: via}
    assert caller_bases(store, "kv/impl.go::whole.Name") == {both: via}
    assert caller_bases(store, "kv/impl.go::half.Get") == {}  # no Put: no Store
    # Router embeds net/http's Handler, whose ServeHTTP the index cannot see: mux is asked for Route alone.
    assert caller_bases(store, "kv/impl.go::mux.Route") == {"kv/kv.go::Serve": via}
    found = testmap.tests_for_symbol(store, queries.find_symbol(store, "kv/impl.go::memory.Get"))
    assert {t.test: t.basis for t in found if t.by_call} == {
        direct: "calls memory.Get through an interface (line 11)",
        "kv/kv_test.go::TestUse": "calls Use, which reaches memory.Get (line 6)",
    }


def test_a_value_handed_to_sort_or_heap_has_its_interface_methods_called(repo: Repo, store: sqlite3.Connection) -> None:
    """`sort.Sort(byName(xs))` runs byName's Len, Less and Swap (sort.Interface), and `heap.Push(h, x)` a heap's
    Push as well: the function handing the value on stands in for the standard library calling them. A
    same-named method of a type never handed on is no caller's."""
    from codeannals.indexer.run import index_tree

    repo.write("go.mod", GO_MOD)
    repo.write(
        "order/order.go",
        'package order\n\nimport (\n\t"container/heap"\n\t"sort"\n)\n\n'
        "type byName []string\n\nfunc (b byName) Len() int { return len(b) }\n\n"
        "func (b byName) Less(i, j int) bool { return b[i] < b[j] }\n\n"
        "func (b byName) Swap(i, j int) { b[i], b[j] = b[j], b[i] }\n\n"
        "type queue []int\n\nfunc (q queue) Len() int { return len(q) }\n\n"
        "func (q queue) Less(i, j int) bool { return q[i] < q[j] }\n\nfunc (q queue) Swap(i, j int) {}\n\n"
        "func (q *queue) Push(x any) {}\n\nfunc (q *queue) Pop() any { return nil }\n\n"
        "type other []int\n\nfunc (o other) Less(i, j int) bool { return false }\n\n"
        "func Order(xs []string) { sort.Sort(byName(xs)) }\n\n"
        "func Add(q *queue) { heap.Push(q, 1) }\n",
    )
    index_tree(repo.root, store)
    assert caller_bases(store, "order/order.go::byName.Less") == {"order/order.go::Order": "named as a value"}
    assert caller_bases(store, "order/order.go::queue.Push") == {"order/order.go::Add": "named as a value"}
    assert caller_bases(store, "order/order.go::other.Less") == {}


def test_a_guess_by_name_never_names_what_go_cannot_call_from_there(repo: Repo, store: sqlite3.Connection) -> None:
    """Go's checker (bench/facts_calls_go.py) said chi's guesses by name were wrong where Go's rules rule them out:
    `r.Context()` on a value whose type the index does not know is no function of a package the file does not
    import; `h.ServeHTTP(w, r)` is never a method of _examples/ (a program the go tool builds apart), nor of another
    folder's test file, nor of a type declared inside another file's function. The guess goes to a method the code
    can reach (Conn.Close), or to none."""
    from codeannals.indexer.run import index_tree

    repo.write("go.mod", GO_MOD)
    repo.write("context.go", "package chi\n\nfunc Context() int { return 0 }\n")
    repo.write("conn/conn.go", "package conn\n\ntype Conn struct{}\n\nfunc (c *Conn) Close() {}\n")
    repo.write(
        "middleware/url.go",
        "package middleware\n\nfunc Other(r any) {\n\tr.Context()\n\tr.ServeHTTP(nil, nil)\n"
        "\tr.Parse()\n\tr.Close()\n}\n",
    )
    repo.write(
        "_examples/custom/main.go",
        'package main\n\nimport "net/http"\n\ntype Handler struct{}\n\n'
        "func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {}\n\nfunc (h Handler) Close() {}\n",
    )
    repo.write(
        "chain/chain_test.go",
        'package chain\n\nimport "testing"\n\ntype args struct{}\n\nfunc (a args) Parse() error { return nil }\n\n'
        "func TestChain(t *testing.T) {\n\ttype flags struct{}\n}\n",
    )
    repo.write("chain/chain.go", "package chain\n\nfunc Use(r any) error { return r.Parse() }\n")
    index_tree(repo.root, store)
    use = queries.find_symbol(store, "chain/chain.go::Use")  # its folder's test file is compiled into its tests only
    assert [(c["name"], c["target"]) for c in callgraph.callees(store, use)] == [("Parse", None)]
    other = queries.find_symbol(store, "middleware/url.go::Other")
    assert {c["name"]: c["target"] for c in callgraph.callees(store, other)} == {
        "Context": None,
        "ServeHTTP": None,
        "Parse": None,
        "Close": "conn/conn.go::Conn.Close",  # a guess, by name: a method middleware's code may reach
    }
    assert caller_bases(store, "context.go::Context") == {}
    assert caller_bases(store, "_examples/custom/main.go::Handler.ServeHTTP") == {}
    assert caller_bases(store, "_examples/custom/main.go::Handler.Close") == {}
    assert caller_bases(store, "chain/chain_test.go::args.Parse") == {}
    assert caller_bases(store, "conn/conn.go::Conn.Close") == {"middleware/url.go::Other": "name only"}


def test_an_assignment_keeps_the_type_a_variable_is_declared(repo: Repo, store: sqlite3.Connection) -> None:
    """chi's tree.go: `var xn *node` and then `xn = nds.findEdge(label)`, or a receiver walked down, `n =
    n.getEdge(k)`: Go keeps the declared type whatever is assigned, where the index had read two bindings that did
    not agree and typed neither (Go's checker: chi's resolved recall .980, .992 once an assignment binds nothing)."""
    from codeannals.indexer.run import index_tree

    repo.write("go.mod", GO_MOD)
    repo.write(
        "tree/tree.go",
        "package tree\n\ntype node struct{ kids []*node }\n\n"
        "func (n *node) edge(k string) *node { return n.kids[0] }\n\nfunc (n *node) leaf() bool { return true }\n\n"
        "func (n *node) walk(k string) bool {\n\tvar xn *node\n\txn = n.edge(k)\n\tfor n != nil {\n"
        "\t\tn = n.edge(k)\n\t}\n\treturn xn.leaf() && n.leaf()\n}\n",
    )
    index_tree(repo.root, store)
    walk = queries.find_symbol(store, "tree/tree.go::node.walk")
    assert {(c["name"], c["target"], c["basis"]) for c in callgraph.callees(store, walk)} == {
        ("edge", "tree/tree.go::node.edge", "method"),
        ("leaf", "tree/tree.go::node.leaf", "method"),
    }
