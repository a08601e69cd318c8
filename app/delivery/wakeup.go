package delivery

// Wakeup tells the dispatcher that new messages are due. Signals coalesce: any
// number of them before the dispatcher looks count as one.
type Wakeup struct{ c chan struct{} }

// NewWakeup returns a ready Wakeup.
func NewWakeup() *Wakeup { return &Wakeup{c: make(chan struct{}, 1)} }

// Signal wakes the dispatcher without blocking. A nil Wakeup ignores it.
func (w *Wakeup) Signal() {
	if w == nil {
		return
	}
	select {
	case w.c <- struct{}{}:
	default:
	}
}

// C is the channel the dispatcher waits on; a nil Wakeup's never fires.
func (w *Wakeup) C() <-chan struct{} {
	if w == nil {
		return nil
	}
	return w.c
}
