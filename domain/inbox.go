package domain

// Thread is one conversation as the inbox lists it: the contact, the
// latest entry of their thread and how many of their messages nobody has
// read in the dashboard yet.
type Thread struct {
	Contact Contact
	// Last is the newest entry of the thread; zero when the contact has
	// none yet.
	Last Entry
	// Unread counts the contact's messages after the last one read
	// (ReadThrough).
	Unread int
}

// IsUnread reports whether an inbound entry counts as unread when the
// thread was read through the entry readThrough (empty: never read).
// Entry ids sort in the order they were recorded, so whatever arrived
// after the page the operator saw stays unread.
func IsUnread(e Entry, readThrough EntryID) bool {
	return e.Direction == Inbound && e.ID > readThrough
}
