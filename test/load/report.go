package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// p99Goal is the latency Herald aims to stay under at half its saturation
// rate.
const p99Goal = 25 * time.Millisecond

// printReport writes the results as Markdown, ready to paste into
// docs/benchmarks.md: a header line saying where and in which mode they
// were measured, the phase table, the memory table and notes. reports[0]
// is the floor.
func printReport(w io.Writer, o options, reports []report) {
	fmt.Fprintf(w, "Loopback, vegeta %s, %s: %s per send-campaign phase, %s of lookups, %d connections, GOMAXPROCS=%d, NumCPU=%d, CPU: %s\n\n",
		vegetaVersion(), modeLine(o), o.duration, max(o.duration/2, 2*time.Second), o.conns, runtime.GOMAXPROCS(0), runtime.NumCPU(), cpuModel())
	floor := reports[0].send.rate
	fmt.Fprintln(w, "| target | phase | req/s | × floor | p50 | p99 | errors |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|")
	for _, r := range reports {
		for _, p := range []phase{r.send, r.paced, r.lookup} {
			if p.label == "" {
				continue // not reached: the target failed before this phase
			}
			fmt.Fprintf(w, "| %s | %s | %.0f | %s | %s | %s | %d |\n",
				r.name, p.title(), p.rate, ratio(p.rate, floor), ms(p.p50), ms(p.p99), p.errors)
		}
	}
	printCPU(w, reports)
	printMemory(w, reports[1:])
	printNotes(w, reports)
}

// sendGoal is the share of the floor's saturated send rate Herald aims for.
const sendGoal = 0.35

// printCPU writes the CPU time each answered request took at saturation, by
// process, and what the goal's rate would need at those costs. It writes
// nothing where /proc could not be read.
func printCPU(w io.Writer, reports []report) {
	if reports[0].send.cpu.busy == 0 {
		return
	}
	fmt.Fprintln(w, "\n| target | phase | herald CPU/req | PostgreSQL CPU/req | load process CPU/req | machine busy |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|")
	for i, r := range reports {
		for _, p := range []phase{r.send, r.lookup} {
			if p.label == "" {
				continue
			}
			server, database := "–", "–"
			if i > 0 {
				server = us(perRequest(p.cpu.server, p.ok))
			}
			if p.cpu.database > 0 {
				database = us(perRequest(p.cpu.database, p.ok))
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.0f%% |\n", r.name, p.title(), server, database,
				us(perRequest(p.cpu.load, p.ok)), 100*p.cpu.busy)
		}
	}
	goal := sendGoal * reports[0].send.rate
	var parts []string
	for _, r := range reports[1:] {
		if r.send.ok == 0 {
			continue
		}
		c := r.send.cpu
		perSend := perRequest(c.server+c.database+c.load, r.send.ok)
		parts = append(parts, fmt.Sprintf("%.2f cores for %s", goal*perSend.Seconds(), r.name))
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "\nAt %.2f × the floor (%.0f sends/s), the CPU per send measured at saturation would take %s; the machine has %d.\n",
			sendGoal, goal, strings.Join(parts, ", "), runtime.NumCPU())
	}
}

func us(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

// modeLine says which key mode drove the load and so what herald did with
// each accepted message.
func modeLine(o options) string {
	if o.mode == modeTest {
		return "test keys (sandbox: every accepted message is sent at once and its statuses recorded, unpaced)"
	}
	return fmt.Sprintf("live keys, dispatcher paced at %d msg/s to the fake Cloud API", o.liveMPS)
}

// title is the phase's label, with a note when -max-requests ended it.
func (p phase) title() string {
	if p.capped {
		return p.label + " (stopped by -max-requests)"
	}
	return p.label
}

func ratio(rate, floor float64) string {
	if floor == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f", rate/floor)
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// printMemory writes the herald servers' peak resident set sizes.
func printMemory(w io.Writer, heralds []report) {
	if len(heralds) == 0 {
		return
	}
	fmt.Fprintln(w, "\n| target | peak RSS (VmHWM) |")
	fmt.Fprintln(w, "|---|---:|")
	for _, r := range heralds {
		rss := "–" // the target failed before it was read
		if r.peakRSS > 0 {
			rss = fmt.Sprintf("%.1f MiB", r.peakRSS)
		}
		fmt.Fprintf(w, "| %s | %s |\n", r.name, rss)
	}
}

// printNotes says how to read the tables, whether each herald met the p99
// goal at half saturation, what failed and where the profiles are.
func printNotes(w io.Writer, reports []report) {
	fmt.Fprintln(w, "\nOnly 202 (send) and 200 (lookup) answers count: req/s, p50 and p99 are over those; anything else is an error.")
	fmt.Fprintln(w, "The floor is a net/http handler in the load process with Herald's token check and phone validation,")
	fmt.Fprintln(w, "and strict decoding for sends, and no storage; its lookup answers a fixed contact. × floor divides by its saturated send rate.")
	var goal []string
	for _, r := range reports[1:] {
		if r.paced.label == "" {
			continue
		}
		verdict := "met"
		if r.paced.ok == 0 || r.paced.p99 >= p99Goal {
			verdict = "NOT met"
		}
		goal = append(goal, fmt.Sprintf("%s %s (%s)", r.name, verdict, ms(r.paced.p99)))
	}
	if len(goal) > 0 {
		fmt.Fprintf(w, "p99 < %s at half saturation: %s.\n", ms(p99Goal), strings.Join(goal, "; "))
	}
	// Vegeta times a request from when a worker takes it: with every worker
	// busy, the paced phase falls behind and its latencies leave out the
	// wait. The shortfall is the sign.
	for _, r := range reports {
		if p := r.paced; p.asked > 0 && p.rate < 0.95*float64(p.asked) {
			fmt.Fprintf(w, "%s fell behind its pace (%.0f of %d/s): its latencies leave out time spent waiting for a free worker.\n",
				r.name, p.rate, p.asked)
		}
	}
	for _, r := range reports {
		for _, p := range []phase{r.send, r.paced, r.lookup} {
			if p.errors > 0 {
				fmt.Fprintf(w, "Errors, %s, %s: %s.\n", r.name, p.label, p.errorSummary())
			}
		}
	}
	for _, r := range reports {
		if c := r.cloud; c != nil {
			answered := int(r.send.ok + r.paced.ok)
			fmt.Fprintf(w, "The fake Cloud API received %d sends from %s (%.1f msg/s over the %.1fs from the server's start to its stop) and accepted %d; the server answered 202 to %d, so %d were still queued when it stopped.\n",
				c.received, r.name, float64(c.received)/c.served.Seconds(), c.served.Seconds(), c.accepted,
				answered, max(0, answered-c.accepted))
		}
	}
	for _, r := range reports {
		if r.profile != "" {
			fmt.Fprintf(w, "CPU profile of %s during send-campaign saturation: %s\n", r.name, r.profile)
		}
	}
}

// errorSummary lists the kinds of error, most frequent first.
func (p phase) errorSummary() string {
	if len(p.kinds) == 0 {
		return "no errors"
	}
	kinds := make([]string, 0, len(p.kinds))
	for k := range p.kinds {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int { return cmp.Or(p.kinds[b]-p.kinds[a], strings.Compare(a, b)) })
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d× %s", p.kinds[k], k))
	}
	return strings.Join(parts, ", ")
}

// cpuModel is the first "model name" of /proc/cpuinfo, or "unknown".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// vegetaVersion is the load generator's module version, from the build.
func vegetaVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/tsenart/vegeta/v12" {
				return m.Version
			}
		}
	}
	return "(version unknown)"
}
