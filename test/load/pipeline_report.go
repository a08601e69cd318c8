package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"
)

// boundedAge is how old the oldest waiting item of any stage may be when
// the load ends for the run to count as keeping up.
const boundedAge = 2 * time.Second

// pipelineResult is what one run of the pipeline at one rate on one engine
// measured.
type pipelineResult struct {
	engine   string        // row label: "SQLite FULL", "PostgreSQL"
	rate     int           // offered, messages per second
	duration time.Duration // of the load
	send     phase         // send-campaign at the rate: 202s, latencies, errors
	// window is what the fake Cloud API counted during the load (its
	// counts at the end less those at the start); final is everything it
	// counted, after the drain.
	window, final fakeStats
	acks          ackLatencies // every webhook POST's answer time, the drain's included
	// The ages of the oldest waiting item of each stage, sampled during the
	// load, and at its end.
	queued, unapplied, parked, owed ageSeries
	drained                         bool          // every accepted message reached read within the drain bound
	drain                           time.Duration // from the load's end until then, or the bound
	heraldCounts                    map[string]int
	cpu                             pipelineCPU // from the load's start to the drain's end
	peakRSS                         float64     // herald's, MiB
	events                          string      // what the event receiver got, or why none
	profile                         string      // herald's CPU profile of the load, if taken
	stages                          []stageShare
	notes                           []string       // what went wrong on the side (a sample that failed, …)
	numbers                         []numberResult // each stored sender number's share; none with the env number
}

// ageSeries is a backlog's age sampled through the load, and at its end.
type ageSeries struct {
	samples []time.Duration
	end     time.Duration
}

func (a ageSeries) p99() time.Duration {
	s := slices.Clone(a.samples)
	slices.Sort(s)
	return quantile(s, 0.99)
}

func (a ageSeries) max() time.Duration {
	m := a.end
	for _, s := range a.samples {
		m = max(m, s)
	}
	return m
}

// quantile is the q-quantile (0 < q ≤ 1) of sorted values by the nearest
// rank: the smallest value at least q of them are no greater than. 0 for
// no values.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// pipelineCPU is the CPU time each process took, and the machine's busy and
// total time, summed over its CPUs.
type pipelineCPU struct {
	herald, postgres, load, fake, receiver time.Duration
	busy, total                            time.Duration
	wall                                   time.Duration
}

// others is the busy time of every process not measured: the machine is
// shared, and this says how much of it was taken by someone else.
func (c pipelineCPU) others() time.Duration {
	return max(0, c.busy-c.herald-c.postgres-c.load-c.fake-c.receiver)
}

// accepted is how many messages herald accepted (202) during the load.
func (r pipelineResult) accepted() int { return int(r.send.ok) }

// perSecond is n spread over the load's duration.
func (r pipelineResult) perSecond(n int) float64 {
	if r.duration <= 0 {
		return 0
	}
	return float64(n) / r.duration.Seconds()
}

// problems says why the run did not keep up, if it did not: every offered
// message must be accepted, the oldest waiting item of every stage must be
// younger than boundedAge when the load ends, and every accepted message
// must reach read, in herald, within the drain bound.
func (r pipelineResult) problems() []string {
	var out []string
	offered := float64(r.rate) * r.duration.Seconds()
	if r.send.ok == 0 {
		return []string{"no send-campaign call was accepted"}
	}
	if r.send.errors > 0 {
		out = append(out, fmt.Sprintf("%d send-campaign calls failed (%s)", r.send.errors, r.send.errorSummary()))
	}
	if float64(r.send.ok+r.send.errors) < 0.95*offered {
		out = append(out, fmt.Sprintf("the load fell behind its pace: %d calls of %.0f offered", r.send.ok+r.send.errors, offered))
	}
	for _, b := range []struct {
		what string
		age  time.Duration
	}{
		{"message not yet sent to the Cloud API", r.queued.end},
		{"status webhook the Cloud API still owed", r.owed.end},
		{"webhook call not yet applied", r.unapplied.end},
		{"parked status", r.parked.end},
	} {
		if b.age >= boundedAge {
			out = append(out, fmt.Sprintf("the oldest %s was %s old when the load ended", b.what, seconds(b.age)))
		}
	}
	if !r.drained {
		out = append(out, fmt.Sprintf("%d of %d accepted messages reached read within %s of the load's end", r.final.Reads, r.accepted(), seconds(r.drain)))
	}
	if read := r.heraldCounts["read"]; read < r.accepted() {
		out = append(out, fmt.Sprintf("herald counts %d of %d accepted messages as read", read, r.accepted()))
	}
	return out
}

func (r pipelineResult) bounded() bool { return len(r.problems()) == 0 }

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// cpuPerMessage is d spread over the accepted messages, in µs.
func (r pipelineResult) cpuPerMessage(d time.Duration) string {
	if r.accepted() == 0 {
		return "–"
	}
	return us(d / time.Duration(r.accepted()))
}

// pipelineRun is one engine's search: its results and the highest rate it
// kept up with.
type pipelineRun struct {
	engine  string
	results []pipelineResult
	best    int
	err     error // what ended the search early, if anything did
}

// printPipeline writes the pipeline's results as Markdown for
// docs/benchmarks.md: how it ran, then throughput and latency, backlogs,
// CPU per message by process, and the profiles' stages.
func printPipeline(w io.Writer, o pipelineOptions, runs []pipelineRun) {
	fmt.Fprintf(w, "Pipeline, loopback: send-campaign at a fixed rate for %s per run with a live key (vegeta %s, open loop); "+
		"herald's dispatcher paced at %d msg/s to the fake Cloud API answering in %s; the fake posts sent, delivered and read "+
		"webhooks, one per POST, %s apart, at most %d in flight; drain bound %s; backlog sampled every %s. GOMAXPROCS=%d, NumCPU=%d, CPU: %s\n\n",
		o.duration, vegetaVersion(), o.mps, o.latency, o.gap, o.webhookParallel, o.drain, o.sample,
		runtime.GOMAXPROCS(0), runtime.NumCPU(), cpuModel())
	if o.heraldBin != "" {
		fmt.Fprintf(w, "Herald: %s (-herald-bin)\n\n", o.heraldBin)
	}
	if o.numbers > 0 {
		pace := o.mps
		if o.numberMPS > 0 {
			pace = o.numberMPS
		}
		fmt.Fprintf(w, "Sender numbers: %d, stored with `herald numbers add`, each paced at %d msg/s and sending its own campaign; "+
			"the load goes round the campaigns in turn; HERALD_WHATSAPP_MPS=%d.\n\n", o.numbers, pace, o.mps)
	}

	fmt.Fprintln(w, "| engine | offered/s | accepted/s | to Cloud API/s | webhooks acked/s | read/s | send p50 | send p99 | send errors | webhook ack p99 | kept up |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, run := range runs {
		for _, r := range run.results {
			fmt.Fprintf(w, "| %s | %d | %.0f | %.0f | %.0f | %.0f | %s | %s | %d | %s | %s |\n",
				r.engine, r.rate, r.send.rate, r.perSecond(r.window.Accepted), r.perSecond(r.window.Acked),
				r.perSecond(r.window.Reads), ms(r.send.p50), ms(r.send.p99), r.send.errors, ms(r.acks.P99), yesNo(r.bounded()))
		}
	}

	printNumbers(w, runs)

	fmt.Fprintln(w, "\nOldest waiting item of each stage, sampled during the load (p99 / max / at the load's end):")
	fmt.Fprintln(w, "\n| engine | offered/s | not yet sent to the Cloud API | webhooks the Cloud API still owes | stored, not applied | parked statuses | all read after |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, run := range runs {
		for _, r := range run.results {
			drain := seconds(r.drain)
			if !r.drained {
				drain = fmt.Sprintf("not within %s (%d of %d)", seconds(r.drain), r.final.Reads, r.accepted())
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s |\n", r.engine, r.rate,
				ages(r.queued), ages(r.owed), ages(r.unapplied), ages(r.parked), drain)
		}
	}

	fmt.Fprintln(w, "\nCPU per accepted message, by process, from the load's start until every message was read (or the drain bound):")
	fmt.Fprintln(w, "\n| engine | offered/s | herald | PostgreSQL | load generator | fake Cloud API | event receiver | other processes | machine busy | herald peak RSS | Cloud API connections (sends each) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, run := range runs {
		for _, r := range run.results {
			c := r.cpu
			pg := "–"
			if c.postgres > 0 {
				pg = r.cpuPerMessage(c.postgres)
			}
			busy := 0.0
			if c.total > 0 {
				busy = float64(c.busy) / float64(c.total)
			}
			perConn := "–"
			if r.final.Connections > 0 {
				perConn = fmt.Sprintf("%.1f", float64(r.final.Accepted)/float64(r.final.Connections))
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %.0f%% | %.1f MiB | %d (%s) |\n", r.engine, r.rate,
				r.cpuPerMessage(c.herald), pg, r.cpuPerMessage(c.load), r.cpuPerMessage(c.fake), r.cpuPerMessage(c.receiver),
				r.cpuPerMessage(c.others()), 100*busy, r.peakRSS, r.final.Connections, perConn)
		}
	}

	fmt.Fprintln(w, "\nCores in use over the same time (CPU seconds per second), which says more than the CPU per message where the run fell behind:")
	fmt.Fprintln(w, "\n| engine | offered/s | herald | PostgreSQL | load generator | fake Cloud API | event receiver | other processes | seconds |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, run := range runs {
		for _, r := range run.results {
			c := r.cpu
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %.1f |\n", r.engine, r.rate, cores(c.herald, c.wall),
				cores(c.postgres, c.wall), cores(c.load, c.wall), cores(c.fake, c.wall), cores(c.receiver, c.wall),
				cores(c.others(), c.wall), c.wall.Seconds())
		}
	}

	fmt.Fprintln(w)
	for _, run := range runs {
		verdict := "none of the rates tried"
		if run.best > 0 {
			verdict = fmt.Sprintf("%d messages/s", run.best)
		}
		fmt.Fprintf(w, "Highest rate kept up with, %s: %s.\n", run.engine, verdict)
		for _, r := range run.results {
			if p := r.problems(); len(p) > 0 {
				fmt.Fprintf(w, "%s at %d/s did not keep up: %s.\n", r.engine, r.rate, strings.Join(p, "; "))
			}
		}
		if run.err != nil {
			fmt.Fprintf(w, "%s: the search stopped: %v\n", run.engine, run.err)
		}
	}
	fmt.Fprintln(w, "\nKept up: every offered call accepted, the oldest waiting item of every stage younger than "+
		seconds(boundedAge)+" when the load ended, and every accepted message read, in herald, within the drain bound.")
	fmt.Fprintln(w, "CPU: herald, PostgreSQL's backends on herald's database with its WAL writer, checkpointer and background writer,")
	fmt.Fprintln(w, "this process (vegeta, herald's log, the sampler), the fake Cloud API and the event receiver each in a process of")
	fmt.Fprintln(w, "its own; other processes are the rest of the machine's busy time (other users of this shared machine).")
	for _, run := range runs {
		for _, r := range run.results {
			if r.events != "" {
				fmt.Fprintf(w, "Events, %s at %d/s: %s.\n", r.engine, r.rate, r.events)
			}
			for _, n := range r.notes {
				fmt.Fprintf(w, "Note, %s at %d/s: %s.\n", r.engine, r.rate, n)
			}
		}
	}
	printStages(w, runs)
}

// cores is d of CPU time over wall time: how many cores were busy with it.
func cores(d, wall time.Duration) string {
	if wall <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", d.Seconds()/wall.Seconds())
}

func ages(a ageSeries) string {
	return fmt.Sprintf("%s / %s / %s", seconds(a.p99()), seconds(a.max()), seconds(a.end))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// printNumbers writes each sender number's share of the runs that sent
// from stored numbers: what the load offered its campaign, what reached
// the Cloud API from it during the load, and what reached read.
func printNumbers(w io.Writer, runs []pipelineRun) {
	found := false
	for _, run := range runs {
		for _, r := range run.results {
			found = found || len(r.numbers) > 0
		}
	}
	if !found {
		return
	}
	fmt.Fprintln(w, "\nBy sender number (to Cloud API/s: sends the fake accepted from the number during the load; read: its messages the fake saw reach read by the drain's end, and herald's count):")
	fmt.Fprintln(w, "\n| engine | offered/s | number | offered/s to it | to Cloud API/s | read (fake) | read (herald) |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|")
	for _, run := range runs {
		for _, r := range run.results {
			for _, n := range r.numbers {
				fmt.Fprintf(w, "| %s | %d | %s | %.0f | %.0f | %d | %d |\n", r.engine, r.rate, n.metaID, n.offered,
					r.perSecond(n.window), n.reads, n.counts["read"])
			}
		}
	}
}
