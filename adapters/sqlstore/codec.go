package sqlstore

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"github.com/heraldhq/herald/ports"
)

// dbTime is a time column: INTEGER Unix microseconds on SQLite (the driver
// binds time.Time so because of the DSN's _time_integer_format), timestamptz
// on PostgreSQL. It is always UTC with microsecond precision.
type dbTime time.Time

func newDBTime(t time.Time) dbTime { return dbTime(t.UTC().Truncate(time.Microsecond)) }

// Value binds the time; the driver decides its wire form.
func (t dbTime) Value() (driver.Value, error) {
	return time.Time(t).UTC().Truncate(time.Microsecond), nil
}

// Scan reads Unix microseconds (SQLite) or a time (PostgreSQL).
func (t *dbTime) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		*t = dbTime(time.UnixMicro(v).UTC())
	case time.Time:
		*t = newDBTime(v)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T into a time", src)
	}
	return nil
}

func (t dbTime) time() time.Time { return time.Time(t) }

// nullTime is a nullable time column.
type nullTime struct {
	T     dbTime
	Valid bool
}

func newNullTime(t *time.Time) nullTime {
	if t == nil {
		return nullTime{}
	}
	return nullTime{T: newDBTime(*t), Valid: true}
}

// Value binds NULL or the time.
func (n nullTime) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.T.Value()
}

// Scan reads NULL or a time.
func (n *nullTime) Scan(src any) error {
	if src == nil {
		*n = nullTime{}
		return nil
	}
	n.Valid = true
	return n.T.Scan(src)
}

func (n nullTime) ptr() *time.Time {
	if !n.Valid {
		return nil
	}
	t := n.T.time()
	return &t
}

// nullString maps the empty string to NULL and back.
type nullString string

// Value binds NULL for the empty string.
func (s nullString) Value() (driver.Value, error) {
	if s == "" {
		return nil, nil
	}
	return string(s), nil
}

// Scan reads NULL as the empty string.
func (s *nullString) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*s = ""
	case string:
		*s = nullString(v)
	case []byte:
		*s = nullString(v)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T into a string", src)
	}
	return nil
}

// jsonText is a JSON column's text: TEXT on SQLite, jsonb on PostgreSQL.
type jsonText string

func toJSON(v any) (jsonText, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("sqlstore: encode JSON column: %w", err)
	}
	return jsonText(b), nil
}

func (j jsonText) decode(v any) error { return json.Unmarshal([]byte(j), v) }

// Scan reads the JSON text.
func (j *jsonText) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*j = jsonText(v)
	case []byte:
		*j = jsonText(v)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T into JSON", src)
	}
	return nil
}

// Value binds the JSON text as a string.
func (j jsonText) Value() (driver.Value, error) { return string(j), nil }

// nullJSON is a nullable JSON column: the empty string binds NULL and NULL
// reads back as the empty string.
type nullJSON string

// toNullJSON encodes v, or stores NULL when v is a nil pointer.
func toNullJSON[T any](v *T) (nullJSON, error) {
	if v == nil {
		return "", nil
	}
	j, err := toJSON(v)
	return nullJSON(j), err
}

// decode reads the JSON into v; it reports false for NULL.
func (j nullJSON) decode(v any) (bool, error) {
	if j == "" {
		return false, nil
	}
	return true, json.Unmarshal([]byte(j), v)
}

// Value binds NULL for the empty string, else the JSON text.
func (j nullJSON) Value() (driver.Value, error) {
	if j == "" {
		return nil, nil
	}
	return string(j), nil
}

// Scan reads NULL as the empty string.
func (j *nullJSON) Scan(src any) error {
	if src == nil {
		*j = ""
		return nil
	}
	var t jsonText
	if err := t.Scan(src); err != nil {
		return err
	}
	*j = nullJSON(t)
	return nil
}

// parseStored rebuilds an enumeration from its stored string; the empty
// string is the zero value. A value the domain does not know means a corrupt
// row, reported as a storage error, never as the domain's invalid_parameter.
func parseStored[T any](what, s string, parse func(string) (T, error)) (T, error) {
	var zero T
	if s == "" {
		return zero, nil
	}
	v, err := parse(s)
	if err != nil {
		return zero, corrupt(what, s)
	}
	return v, nil
}

func corrupt(what, value string) error {
	return fmt.Errorf("sqlstore: stored %s %q is not valid", what, value)
}

// Page limits.
const (
	defaultPageLimit = 50
	maxPageLimit     = 100
)

func pageLimit(p ports.Page) int {
	switch {
	case p.Limit <= 0:
		return defaultPageLimit
	case p.Limit > maxPageLimit:
		return maxPageLimit
	}
	return p.Limit
}
