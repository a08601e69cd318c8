// Package events delivers the events Herald writes with the changes they
// report (decision 0020) to the customer's webhook endpoints: a worker
// sequences committed events for the pull API, claims due deliveries under
// a lease, signs and posts them, and records each attempt with what the
// retry schedule and the disabling rule make of it; a retention loop
// purges old events. A transaction that appended events wakes the worker
// as it commits (WakeOnCommit); otherwise it polls.
package events
