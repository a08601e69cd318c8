package memstore_test

import (
	"testing"

	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/ports/porttest"
)

func TestStore(t *testing.T) {
	t.Parallel()
	porttest.RunStore(t, func(*testing.T) porttest.Store { return memstore.New() })
}
