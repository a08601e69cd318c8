package sqlstore

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
	"github.com/jmoiron/sqlx/reflectx"
)

// Named statements on PostgreSQL. sqlx parses a named statement's text at
// every call (and Rebind scans it again), which was 3.5–3.9% of herald's
// CPU in the pipeline run; the texts are constants, so each is compiled
// once into the engine's positional form and the names of its parameters,
// and a call only looks its arguments up.
//
// Each compiled form is checked, at its first use, against what sqlx makes
// of the same text and argument; a text the two read differently is left
// to sqlx for good. So the cache never changes what runs, only how often
// the text is parsed.

// namedQuery is one statement's compiled form.
type namedQuery struct {
	sql   string   // positional, in the engine's bind style
	names []string // the parameter of each position
	sqlx  bool     // compiled differently from sqlx: leave it to sqlx
}

// namedCache holds the compiled statements of a store and of its copies
// bound to transactions.
type namedCache struct {
	m sync.Map // string → *namedQuery
}

// bindNamed turns the named statement q with arg (a struct, a pointer to
// one, or a map of names) into positional SQL and its arguments, compiling
// q once. Other arguments (a slice, for a multi-row INSERT) go to sqlx.
func (c *namedCache) bindNamed(q string, arg any, mapper *reflectx.Mapper, rebind func(string) string) (string, []any, error) {
	viaSQLX := func() (string, []any, error) {
		bound, args, err := sqlx.Named(q, arg)
		return rebind(bound), args, err
	}
	if _, isMap := arg.(map[string]any); !isMap {
		if t := reflect.TypeOf(arg); t == nil || (t.Kind() != reflect.Struct &&
			(t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct)) {
			return viaSQLX()
		}
	}
	if v, ok := c.m.Load(q); ok {
		nq := v.(*namedQuery)
		if nq.sqlx {
			return viaSQLX()
		}
		args, err := nq.args(arg, mapper)
		return nq.sql, args, err
	}
	bound, args, err := viaSQLX()
	if err != nil {
		return bound, args, err
	}
	nq := compileNamed(q, rebind)
	mine, err := nq.args(arg, mapper)
	nq.sqlx = err != nil || nq.sql != bound || !reflect.DeepEqual(mine, args)
	c.m.Store(q, nq)
	return bound, args, nil
}

// compileNamed reads q as sqlx reads a named statement: `:name` (letters,
// digits, `_` and `.`) is a parameter, `::` stands for one colon and `:=`
// is left as it is.
func compileNamed(q string, rebind func(string) string) *namedQuery {
	var b strings.Builder
	b.Grow(len(q))
	var names []string
	isName := func(c byte) bool {
		return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c != ':':
			b.WriteByte(c)
		case i+1 < len(q) && q[i+1] == ':':
			b.WriteByte(':')
			i++
		case i+1 < len(q) && q[i+1] == '=':
			b.WriteString(":=")
			i++
		default:
			j := i + 1
			for j < len(q) && isName(q[j]) {
				j++
			}
			if j == i+1 {
				// a colon without a name: sqlx reads it otherwise
				return &namedQuery{sqlx: true}
			}
			names = append(names, q[i+1:j])
			b.WriteByte('?')
			i = j - 1
		}
	}
	return &namedQuery{sql: rebind(b.String()), names: names}
}

var errNamedArg = errors.New("sqlstore: a named statement's argument lacks a parameter")

// args looks nq's parameters up in arg, in order.
func (nq *namedQuery) args(arg any, mapper *reflectx.Mapper) ([]any, error) {
	out := make([]any, len(nq.names))
	if m, ok := arg.(map[string]any); ok {
		for i, n := range nq.names {
			v, ok := m[n]
			if !ok {
				return nil, fmt.Errorf("%w: %s", errNamedArg, n)
			}
			out[i] = v
		}
		return out, nil
	}
	v := reflect.Indirect(reflect.ValueOf(arg))
	for i, t := range mapper.TraversalsByName(v.Type(), nq.names) {
		if len(t) == 0 {
			return nil, fmt.Errorf("%w: %s", errNamedArg, nq.names[i])
		}
		out[i] = reflectx.FieldByIndexesReadOnly(v, t).Interface()
	}
	return out, nil
}
