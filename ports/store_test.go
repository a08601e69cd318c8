package ports_test

import (
	"reflect"
	"testing"

	"github.com/heraldhq/herald/ports"
)

// TestStorePortsListStore: StorePorts names exactly the interfaces Store is
// made of, so the store adapters' wiring provides every port the contract
// suite checks, and nothing else.
func TestStorePortsListStore(t *testing.T) {
	t.Parallel()
	store := reflect.TypeFor[ports.Store]()
	covered := map[string]bool{}
	seen := map[reflect.Type]bool{}
	for _, p := range ports.StorePorts() {
		it := reflect.TypeOf(p).Elem()
		if it.Kind() != reflect.Interface {
			t.Fatalf("StorePorts lists %s, not an interface", it)
		}
		if seen[it] {
			t.Errorf("StorePorts lists %s twice", it)
		}
		seen[it] = true
		if !store.Implements(it) {
			t.Errorf("StorePorts lists %s, which Store does not embed", it)
		}
		for i := range it.NumMethod() {
			covered[it.Method(i).Name] = true
		}
	}
	for i := range store.NumMethod() {
		if m := store.Method(i).Name; !covered[m] {
			t.Errorf("Store's method %s belongs to no interface StorePorts lists", m)
		}
	}
}
