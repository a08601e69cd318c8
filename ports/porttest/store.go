package porttest

import (
	"slices"
	"testing"

	"github.com/heraldhq/herald/ports"
)

// Store is what RunStore checks: every port a store adapter provides
// (ports.Store).
type Store = ports.Store

// storeTest is one case of the suite.
type storeTest struct {
	name string
	run  func(t *testing.T, s Store)
}

// RunStore runs the repository contract suite against one store, which
// newStore makes once and every case shares. Register cleanups with
// t.Cleanup, not defer: the parallel cases run after the calling test
// function has returned.
//
// Cases are isolated without truncation: each works in its own fresh, random
// workspace, so all of them run in parallel on the shared store. What does
// not belong to a workspace is isolated the same way: templates by a random
// account, parked statuses by random wamids, webhook events by a random,
// never-reused window of receipt times that every listing filters on,
// operators by random email addresses and sessions by random tokens. The
// global purges (parked statuses, idempotency records, send counts, expired
// sessions) reach only rows dated decades ago, which no other case writes.
// The queue is the exception, because ClaimMessages looks across
// workspaces: the Queue cases run first and one after another, and only
// then do the parallel cases start. The queue cases only ever assert about
// their own messages, so a store that is not empty does not disturb them;
// the later cases never claim, so their messages cannot disturb the queue
// cases. The outbox's sequencer, purge and delivery claims look across
// workspaces too: the Outbox cases run the same way, after the Queue
// cases, and the parallel cases never sequence, purge or claim.
func RunStore(t *testing.T, newStore func(t *testing.T) Store) {
	t.Helper()
	s := newStore(t)

	t.Run("Queue", func(t *testing.T) {
		for _, tc := range slices.Concat(queueTests, optOutQueueTests) {
			t.Run(tc.name, func(t *testing.T) { tc.run(t, s) })
		}
	})
	t.Run("Outbox", func(t *testing.T) {
		for _, tc := range slices.Concat(sequenceTests, deliveryTests) {
			t.Run(tc.name, func(t *testing.T) { tc.run(t, s) })
		}
	})

	groups := []struct {
		name  string
		tests []storeTest
	}{
		{"Ping", pingTests},
		{"Workspaces", workspaceTests},
		{"Keys", keyTests},
		{"Campaigns", campaignTests},
		{"Templates", templateTests},
		{"Contacts", contactTests},
		{"Identities", identityTests},
		{"Messages", messageTests},
		{"SessionMessages", sessionMessageTests},
		{"Conversations", conversationTests},
		{"Inbox", inboxTests},
		{"Modes", modeTests},
		{"Marketing", marketingTests},
		{"Webhooks", webhookTests},
		{"SendGuards", sendGuardTests},
		{"PhoneHealth", phoneHealthTests},
		{"MessagingReach", reachTests},
		{"Operators", operatorTests},
		{"Events", eventTests},
		{"Endpoints", endpointTests},
		{"Numbers", numberTests},
		{"Media", mediaTests},
		{"Tx", txTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.run(t, s)
				})
			}
		})
	}
}

var pingTests = []storeTest{
	{"Reachable", func(t *testing.T, s Store) {
		if err := s.Ping(t.Context()); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	}},
}
