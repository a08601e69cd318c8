package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// errKind is what a driver error means to the ports.
type errKind int

const (
	kindOther errKind = iota
	kindUnique
	kindUnavailable
)

// fail translates an error from the database once, for the operation op:
//   - no rows: notFound, as domain.NotFound(notFound), when the caller gave one;
//   - a unique violation: a domain conflict (errors.Is domain.ErrConflict);
//   - an unreachable, locked or timed-out database: ports.ErrUnavailable;
//   - anything else: wrapped with op.
//
// Errors that are already domain errors or ports.ErrUnavailable (from an
// inner call, or from an update function) pass through unchanged.
func (s *Store) fail(op string, err error, notFound *domain.Error) error {
	return translate(s.d, op, err, notFound)
}

func translate(d Dialect, op string, err error, notFound *domain.Error) error {
	var de *domain.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de), errors.Is(err, ports.ErrUnavailable):
		return err
	case errors.Is(err, sql.ErrNoRows) && notFound != nil:
		return domain.NotFound(notFound)
	}
	switch classify(d, err) {
	case kindUnique:
		conflict := &domain.Error{Code: domain.CodeConflict, Detail: op + ": an object with the same unique key already exists"}
		return fmt.Errorf("sqlstore: %s: %w: %w", op, conflict, err)
	case kindUnavailable:
		return fmt.Errorf("sqlstore: %s: %w: %w", op, ports.ErrUnavailable, err)
	}
	return fmt.Errorf("sqlstore: %s: %w", op, err)
}

func classify(d Dialect, err error) errKind {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, driver.ErrBadConn),
		errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), // the server went away mid-answer
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE),
		errors.As(err, &ne):
		return kindUnavailable
	}
	return d.classify(err)
}
