package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL driver, to read the outcome
)

// TestInstanceKilledMidRun runs three herald serve processes on one
// PostgreSQL database, sends 3,000 sandbox messages across them, kills one
// with SIGKILL part-way, and checks that every accepted message still
// reaches sent: the killed instance's leases expire and the others take its
// messages over.
func TestInstanceKilledMidRun(t *testing.T) {
	t.Parallel()
	const total, instances = 3000, 3
	in := newInstance(t, "postgres")
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "cluster")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "C", "--template-name", "c", "--language", "en",
		"--body", "Hi {{1}}", "--activate")

	servers := make([]*server, instances)
	for i := range servers {
		servers[i] = in.serve("HERALD_LEASE_DURATION=2s", "HERALD_SANDBOX_STEP_DELAY=1h", "HERALD_RATE_LIMIT=1000000", "HERALD_RATE_BURST=1000000")
	}

	var (
		mu       sync.Mutex
		accepted int
		refused  = map[int]int{}
	)
	sendRange := func(from, to int, targets []*server) {
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := from + w; i < to; i += 8 {
					var out struct{ ID string }
					code := targets[i%len(targets)].call(t, "POST", "/v1/messages/send-campaign", key.Token,
						map[string]any{"phoneNumber": fmt.Sprintf("+1415555%04d", i), "campaignId": camp.ID, "variables": []string{"Ana"}}, &out)
					mu.Lock()
					if code == 202 {
						accepted++
					} else {
						refused[code]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	sendRange(0, total/2, servers)
	victim := servers[0]
	if err := victim.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-victim.Done
	sendRange(total/2, total, servers[1:])
	if accepted != total {
		t.Fatalf("%d of %d sends accepted; refused: %v", accepted, total, refused)
	}

	db, err := sql.Open("pgx", databaseURL(in))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Other processes do the work: the database is the only signal there is.
	// Bounded: the lease is 2 s, so takeover needs a few seconds at most.
	deadline := time.Now().Add(90 * time.Second)
	var pending, count int
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE status IN ('queued','sending')), count(*) FROM messages`).Scan(&pending, &count)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if pending == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if pending != 0 || count != total {
		t.Fatalf("%d of %d messages never reached sent after an instance was killed", pending, count)
	}
	for _, s := range servers[1:] {
		s.Stop(t)
	}
}
