// Command load measures Herald's HTTP throughput, latency and memory on
// loopback, with vegeta (github.com/tsenart/vegeta) as the load generator.
//
// It builds the herald binary, creates a key and an active campaign with
// the CLI, and serves herald on 127.0.0.1 with the key's rate limit lifted
// (so the limiter is not what is measured). -mode says which key, and so
// what herald does with each message it accepts:
//
//   - live (the default): a live key. The load process starts the fake
//     Cloud API of test/fakemeta on 127.0.0.1, knowing the campaign's
//     template, and herald's sender points at it (HERALD_WHATSAPP_API_URL,
//     _ACCESS_TOKEN, _PHONE_NUMBER_ID; no business account, so no template
//     sync). The dispatcher sends at HERALD_WHATSAPP_MPS, herald's default
//     of 80 msg/s (Meta's default per number) unless -mps-live says
//     otherwise, and the fake answers at once. This is the path production
//     runs: requests are accepted as fast as the server can, while the
//     dispatcher drains the queue at the pace Meta allows, so a send run
//     builds a backlog as a burst of traffic does. The report says how many
//     messages reached the fake per server, and how many were still queued
//     when it stopped. Meta's status webhooks (sent, delivered, read: about
//     three per message, at the same pace) are not simulated.
//   - test: a test key. The sandbox sends every accepted message at once and
//     records its sent, delivered and read statuses, unpaced, so at
//     saturation about half of the database's work is that simulated
//     lifecycle, which a production server does not do. It shows how the
//     sandbox holds up, not what production serves.
//
// Each target is measured alone, in this order:
//
//   - the floor: a net/http handler inside this process that does Herald's
//     token parse and constant-time hash compare and phone validation (and,
//     for sends, strict decoding) with no storage; its lookup answers a
//     fixed contact. Every req/s figure is also given as a ratio to the
//     floor's saturated send rate, which makes runs on different machines
//     comparable;
//   - herald on a fresh SQLite file (synchronous=FULL);
//   - herald on a fresh PostgreSQL database, when -postgres names a server
//     (the database is created, migrated and dropped).
//
// For each target it runs three phases, each bounded by its duration and by
// -max-requests:
//
//  1. POST /v1/messages/send-campaign at saturation: -connections workers
//     and connections, each sending its next request when the previous one
//     is answered, for -duration; recipients rotate through 10,000 numbers;
//  2. the same at a fixed rate of half the saturation rate just measured,
//     for -duration: the latency a server has with headroom (the goal is a
//     p99 under 25 ms);
//  3. GET /v1/contacts/by-phone/{phone} at saturation, over the numbers
//     sent to, for half of -duration (at least 2s).
//
// Only 202 (sends) and 200 (lookups) count as successes: req/s, p50 and p99
// are over those, and anything else is counted as an error. It also reports
// the CPU time each answered request took at saturation, by process (herald,
// PostgreSQL's processes, and this one: the load generator, the floor's
// handler and the fake Cloud API), read from /proc, and how many cores the
// goal's rate (0.35 × the floor) would need at those costs; each herald's
// peak resident set (VmHWM); and, with -cpuprofile DIR, it writes
// a CPU profile of each herald's send saturation phase to
// DIR/cpu-sqlite.pprof and DIR/cpu-postgres.pprof, fetched from the
// profiler herald serves on HERALD_DEBUG_ADDR. The results are printed as
// Markdown tables for docs/benchmarks.md. Run it from the module root:
//
//	go run ./test/load -duration 10s -connections 64 -postgres "$HERALD_TEST_POSTGRES_URL" -cpuprofile /tmp/prof
//	go run ./test/load -duration 10s -mode test
//	go tool pprof -top /tmp/prof/cpu-sqlite.pprof
//
// With -dispatch N it measures the dispatcher instead: how fast N accepted
// messages on SQLite reach a fake Cloud API that answers after -latency,
// paced at -mps:
//
//	go run ./test/load -dispatch 5000 -latency 100ms -mps 1000
//
// With -pipeline it measures the whole pipeline instead, at fixed rates:
// send-campaign posted open loop (vegeta's constant pacer) at each rate of
// -rates for -duration (60s by default) with a live key; herald's
// dispatcher sending to the fake Cloud API (answering in -latency, paced
// at -mps); the fake posting each accepted message's sent, delivered and
// read webhooks back to herald's /v1/webhooks/whatsapp, signed with the app
// secret herald is given, one status per POST, -gap apart, at most
// -webhook-parallel in flight; and, when herald offers POST
// /v1/webhook-endpoints (the customer events of issue 26), a Standard
// Webhooks receiver subscribed to every event. Each rate gets a fresh
// database (SQLite with synchronous=FULL; PostgreSQL, created and dropped,
// when -postgres names a server), a fresh herald, fake and receiver. The
// fake and the receiver run in child processes of their own (this binary
// started again), so that each process's CPU time is its own.
//
// Once a second (-sample) it reads, straight from herald's database and
// read-only, the age of the oldest message not yet sent, of the oldest
// webhook call stored and not applied and of the oldest parked status, and
// from the fake the age of the oldest status webhook it still owes herald
// (herald acknowledges each call only once it is stored and applied, so a
// herald that falls behind makes the fake's backlog grow). After the load
// it waits at most -drain for every accepted message to reach read, then
// checks herald's own count (GET /v1/campaigns/{id}/stats).
//
// Per rate and engine it reports the rates sustained (accepted, sent to the
// Cloud API, webhooks acknowledged, read), send-campaign p50 and p99, the
// webhook acknowledgement's p99, the p99, maximum and end value of each
// stage's oldest age, the CPU time per accepted message of each process
// (herald; PostgreSQL's backends on herald's database and its writers;
// this process; the fake; the receiver; and the rest of the machine, which
// is shared), herald's peak RSS, and how many TCP connections herald's
// Cloud API client opened. A rate is kept up with when every offered call
// was accepted, every stage's oldest item was younger than 2s when the
// load ended, and every accepted message was read within -drain. The
// rates are tried lowest first, and the search stops at the first rate
// not kept up with (-all-rates runs them all). With -cpuprofile DIR, herald's CPU profile of each
// load is written to DIR/cpu-pipeline-ENGINE-RATE.pprof and its samples
// are shared out by stage (accept, dispatch, webhook receive, webhook
// apply, commits, GC, logging, …):
//
//	go run ./test/load -pipeline -rates 250,500,750,1000 -postgres "$HERALD_TEST_POSTGRES_URL" -cpuprofile /tmp/prof
//	go run ./test/load -pipeline -rates 100 -duration 10s -engines sqlite
//
// By default herald sends from the one number HERALD_WHATSAPP_* defines.
// With -numbers N it sends from N business numbers instead, each stored
// with `herald numbers add` (its own token, sealed; paced at -mps; odd and
// even numbers in two business accounts of two Meta apps, whose secrets
// sign their webhooks), each sending its own campaign, made through POST
// /v1/campaigns with its phoneNumberId; the load goes round the campaigns
// in turn, and the report adds each number's rate to the Cloud API and its
// messages read (the profile is then cpu-pipeline-ENGINE-RATE-numbers-N.pprof):
//
//	go run ./test/load -pipeline -numbers 4 -rates 500,1000 -duration 30s -postgres "$HERALD_TEST_POSTGRES_URL"
package main
