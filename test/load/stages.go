package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// stageShare is the share of a CPU profile's samples one stage of the
// pipeline took.
type stageShare struct {
	stage string
	share float64 // 0..1
}

// A stage is recognised by the functions on a sample's stack, matched by
// type and method whatever package the code lives in:
//
//  1. the garbage collector's own work (background marking, assists,
//     sweeping), anywhere on the stack;
//  2. a transaction's work. Every transaction runs in the store's
//     runGroup (on SQLite a group's runner runs the other members'
//     functions too, on PostgreSQL each runs alone), so the member's own
//     frames, those leaf-ward of runMember, decide: the use case whose
//     closure it is, or the store method that opened it. The runner's own
//     work outside any member (BEGIN, savepoints, COMMIT) is a stage of
//     its own: the price of a commit;
//  3. anything else by the first function from the leaf towards the root
//     that names a stage. An HTTP client connection's own goroutines
//     (net/http.(*persistConn)) carry no caller, so the event worker's
//     connections to endpoints count with the dispatcher's to the Cloud API.
var (
	gcStage = stageRule{"GC (marking, assists, sweeping)", []string{
		"runtime.gcBgMarkWorker", "runtime.gcAssistAlloc", "runtime.bgsweep", "runtime.bgscavenge", "runtime.gcStart",
		"runtime.gcMarkDone", "runtime.gcMarkTermination"}}
	stageRules = []stageRule{
		{"logging (zap: access log, use-case log)", []string{"go.uber.org/zap"}},
		{"webhook apply (statuses to messages)", []string{"(*ApplyWebhookEventHandler)", "(*RecordStatusEventHandler)",
			"(*ReplayWebhookEventsHandler)", "(*Store).UpdateWebhookEvent"}},
		{"webhook receive (signature, store the call)", []string{"(*ReceiveWebhookHandler)", ").receiveWebhook",
			"(*Store).SaveWebhookEvent"}},
		{"dispatch (claim, send to the Cloud API, record)", []string{"(*Dispatcher)", "net/http.(*persistConn)",
			"net/http.(*Transport)", "net.(*Dialer)", "(*Store).ClaimMessages", "(*Store).RenewLeases"}},
		{"accept (send-campaign: checks, batch, store)", []string{"(*SendCampaignMessageHandler)", ").sendCampaign",
			"(*AuthenticateKeyHandler)", "(*Store).TouchKeys"}},
		{"event delivery (claim, post to the endpoint, record the attempt)", []string{"events.(*Worker)",
			"adapters/webhookout.", "(*Store).ClaimDeliveries", "(*Store).RecordAttempt", "(*Store).SequenceEvents"}},
	}
	commitStage    = "transaction BEGIN, savepoints, COMMIT (store's runner)"
	unknownMember  = "transaction of an unrecognised caller"
	runnerMarks    = stageRule{commitStage, []string{"(*Store).runGroup", "(*committer)"}}
	memberMark     = "sqlstore.runMember"
	fallbackStages = []stageRule{
		{"HTTP server (requests, middleware, answers)", []string{"net/http.(*conn).serve", "net/http.(*Server)"}},
		{"scheduler, timers, network poller", []string{"runtime.schedule", "runtime.findRunnable", "runtime.mcall",
			"runtime.park_m", "runtime.sysmon", "runtime.netpoll"}},
	}
	otherStage = "other"
)

// stageRule names a stage and the function name fragments that mark it.
type stageRule struct {
	stage string
	marks []string
}

func (r stageRule) matches(fn string) bool {
	for _, m := range r.marks {
		if strings.Contains(fn, m) {
			return true
		}
	}
	return false
}

// firstStage is the stage of the first function of stack, leaf first,
// that one of rules names; "" when none does.
func firstStage(stack []string, rules []stageRule) string {
	for _, fn := range stack {
		for _, r := range rules {
			if r.matches(fn) {
				return r.stage
			}
		}
	}
	return ""
}

// stageOf names the stage of one stack, leaf first.
func stageOf(stack []string) string {
	if slices.ContainsFunc(stack, gcStage.matches) {
		return gcStage.stage
	}
	if i := slices.IndexFunc(stack, func(fn string) bool { return strings.Contains(fn, memberMark) }); i >= 0 {
		if s := firstStage(stack[:i], stageRules); s != "" {
			return s
		}
		return unknownMember
	}
	if slices.ContainsFunc(stack, runnerMarks.matches) {
		return commitStage
	}
	if s := firstStage(stack, stageRules); s != "" {
		return s
	}
	if s := firstStage(stack, fallbackStages); s != "" {
		return s
	}
	return otherStage
}

// profileStages reads a CPU profile and returns each stage's share of its
// CPU time, largest first.
func profileStages(path string) ([]stageShare, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, err
	}
	value := len(p.SampleType) - 1 // cpu/nanoseconds comes last in Go's CPU profiles
	byStage := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		var stack []string
		for _, loc := range s.Location {
			for _, ln := range loc.Line { // an inlined function first, then its caller
				if ln.Function != nil {
					stack = append(stack, ln.Function.Name)
				}
			}
		}
		v := s.Value[value]
		byStage[stageOf(stack)] += v
		total += v
	}
	return shares(byStage, total), nil
}

// shares turns amounts by stage into shares of total, largest first, ties
// by name.
func shares(byStage map[string]int64, total int64) []stageShare {
	out := make([]stageShare, 0, len(byStage))
	if total == 0 {
		return out
	}
	for stage, v := range byStage {
		out = append(out, stageShare{stage: stage, share: float64(v) / float64(total)})
	}
	slices.SortFunc(out, func(a, b stageShare) int {
		if a.share != b.share {
			if a.share > b.share {
				return -1
			}
			return 1
		}
		return strings.Compare(a.stage, b.stage)
	})
	return out
}

// printStages writes the stages of every profiled run, one column per run.
func printStages(w io.Writer, runs []pipelineRun) {
	var cols []pipelineResult
	for _, run := range runs {
		for _, r := range run.results {
			if len(r.stages) > 0 {
				cols = append(cols, r)
			}
		}
	}
	if len(cols) == 0 {
		return
	}
	var names []string
	for _, r := range cols {
		for _, s := range r.stages {
			if !slices.Contains(names, s.stage) {
				names = append(names, s.stage)
			}
		}
	}
	fmt.Fprintln(w, "\nHerald's CPU profile of the load, by stage (share of herald's CPU samples):")
	fmt.Fprint(w, "\n| stage |")
	for _, r := range cols {
		fmt.Fprintf(w, " %s %d/s |", r.engine, r.rate)
	}
	fmt.Fprint(w, "\n|---|")
	for range cols {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, name := range names {
		fmt.Fprintf(w, "| %s |", name)
		for _, r := range cols {
			i := slices.IndexFunc(r.stages, func(s stageShare) bool { return s.stage == name })
			if i < 0 {
				fmt.Fprint(w, " – |")
				continue
			}
			fmt.Fprintf(w, " %.1f%% |", 100*r.stages[i].share)
		}
		fmt.Fprintln(w)
	}
	for _, r := range cols {
		fmt.Fprintf(w, "CPU profile of %s at %d/s: %s\n", r.engine, r.rate, r.profile)
	}
}
