package sqlstore

import (
	"reflect"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/jmoiron/sqlx/reflectx"
)

// namedRow is a struct argument as the stores pass them: db tags, one
// field embedded.
type namedRow struct {
	namedKey
	Status string  `db:"status"`
	Body   []byte  `db:"body"`
	Price  float64 `db:"price"`
}

type namedKey struct {
	Workspace string `db:"workspace_id"`
	ID        string `db:"id"`
}

var dollar = func(q string) string { return sqlx.Rebind(sqlx.DOLLAR, q) }

// TestNamedStatementsBindAsSQLXBindsThem: the compiled form of a named
// statement and its arguments are sqlx's, for struct and map arguments,
// with PostgreSQL's casts written `::`, `:=`, a name at the very end and
// names used twice; and they are compiled once.
func TestNamedStatementsBindAsSQLXBindsThem(t *testing.T) {
	t.Parallel()
	mapper := reflectx.NewMapperFunc("db", sqlx.NameMapper)
	row := namedRow{namedKey: namedKey{Workspace: "ws_1", ID: "msg_1"}, Status: "read", Body: []byte("{}"), Price: 0.25}
	queries := []string{
		`UPDATE messages SET status = :status, body = :body, price = :price WHERE workspace_id = :workspace_id AND id = :id`,
		`SELECT x::text FROM t WHERE a = :id AND (:status = '' OR status = :status) AND b =:workspace_id`,
		`SELECT 1 WHERE a := 1 OR id = :id`,
		`INSERT INTO t (id, status) VALUES (:id, :status) ON CONFLICT (id) DO NOTHING`,
		`SELECT 1 FROM t WHERE id=:id`,
	}
	args := []any{row, &row, map[string]any{"id": "msg_1", "status": "sent", "body": []byte("x"), "price": 1.5, "workspace_id": "ws_2"}}
	var c namedCache
	for _, q := range queries {
		for _, arg := range args {
			wantSQL, wantArgs, err := sqlx.Named(q, arg)
			if err != nil {
				t.Fatalf("sqlx: %s: %v", q, err)
			}
			wantSQL = dollar(wantSQL)
			for range 2 { // compiled, then from the cache
				gotSQL, gotArgs, err := c.bindNamed(q, arg, mapper, dollar)
				if err != nil || gotSQL != wantSQL || !reflect.DeepEqual(gotArgs, wantArgs) {
					t.Fatalf("%s with %T:\n got %s %v (%v)\nwant %s %v", q, arg, gotSQL, gotArgs, err, wantSQL, wantArgs)
				}
			}
		}
		v, ok := c.m.Load(q)
		if !ok || v.(*namedQuery).sqlx {
			t.Errorf("%s: not compiled once (%v)", q, v)
		}
	}
	if _, _, err := c.bindNamed(queries[0], map[string]any{"id": "msg_1"}, mapper, dollar); err == nil {
		t.Error("a map without the statement's names was bound")
	}
}

// TestNamedStatementsSQLXReadsOtherwiseAreLeftToIt: a text the compiler
// reads differently from sqlx, and a slice argument (a multi-row INSERT),
// go to sqlx.
func TestNamedStatementsSQLXReadsOtherwiseAreLeftToIt(t *testing.T) {
	t.Parallel()
	mapper := reflectx.NewMapperFunc("db", sqlx.NameMapper)
	var c namedCache
	q := `SELECT ': ' || name FROM t WHERE id = :id`
	arg := map[string]any{"id": "x", "": "y"}
	wantSQL, wantArgs, wantErr := sqlx.Named(q, arg)
	gotSQL, gotArgs, gotErr := c.bindNamed(q, arg, mapper, func(s string) string { return s })
	if gotSQL != wantSQL || !reflect.DeepEqual(gotArgs, wantArgs) || (gotErr == nil) != (wantErr == nil) {
		t.Errorf("got %q %v %v, want sqlx's %q %v %v", gotSQL, gotArgs, gotErr, wantSQL, wantArgs, wantErr)
	}
	if v, ok := c.m.Load(q); ok && !v.(*namedQuery).sqlx {
		t.Errorf("%s: kept a compiled form sqlx does not make", q)
	}
	rows := []namedRow{{namedKey: namedKey{ID: "a"}, Status: "s"}, {namedKey: namedKey{ID: "b"}, Status: "t"}}
	ins := `INSERT INTO t (id, status) VALUES (:id, :status)`
	wantSQL, wantArgs, _ = sqlx.Named(ins, rows)
	gotSQL, gotArgs, err := c.bindNamed(ins, rows, mapper, func(s string) string { return s })
	if err != nil || gotSQL != wantSQL || !reflect.DeepEqual(gotArgs, wantArgs) {
		t.Errorf("rows: got %q %v %v, want %q %v", gotSQL, gotArgs, err, wantSQL, wantArgs)
	}
}

// BenchmarkBindNamed binds a message update's statement, as PostgreSQL's
// store does at every call: with the compiled form, and with sqlx alone.
func BenchmarkBindNamed(b *testing.B) {
	mapper := reflectx.NewMapperFunc("db", sqlx.NameMapper)
	q := `UPDATE messages SET status = :status, body = :body, price = :price WHERE workspace_id = :workspace_id AND id = :id`
	row := namedRow{namedKey: namedKey{Workspace: "ws_1", ID: "msg_1"}, Status: "read", Body: []byte("{}"), Price: 0.25}
	m := map[string]any{"id": "msg_1", "status": "sent", "body": []byte("x"), "price": 1.5, "workspace_id": "ws_2"}
	for _, arg := range []struct {
		name string
		v    any
	}{{"struct", row}, {"map", m}} {
		b.Run("compiled/"+arg.name, func(b *testing.B) {
			b.ReportAllocs()
			var c namedCache
			for b.Loop() {
				if _, _, err := c.bindNamed(q, arg.v, mapper, dollar); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("sqlx/"+arg.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bound, _, err := sqlx.Named(q, arg.v)
				if err != nil {
					b.Fatal(err)
				}
				_ = dollar(bound)
			}
		})
	}
}
