package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/app/delivery"
)

type replayedJSON struct {
	ID         string  `json:"id"`
	ReceivedAt string  `json:"receivedAt"`
	Applied    bool    `json:"applied"`
	Attempts   int     `json:"attempts"`
	Error      *string `json:"error"`
	Statuses   int     `json:"statuses"`
	Parked     int     `json:"parked"`
	Inbound    int     `json:"inbound"`
	OptedOut   int     `json:"optedOut"`
	OptedIn    int     `json:"optedIn"`
	Templates  int     `json:"templates"`
	// Identities counts contacts changed by a user's change of number or
	// user id; Foreign items for business numbers that are not Herald's
	// (stored, not applied).
	Identities int `json:"identities"`
	Foreign    int `json:"foreign"`
	// MarketingStopped and MarketingResumed count contacts who stopped or
	// resumed marketing messages, Categories campaigns whose template
	// category changed, QueuedFailed messages still waiting that an
	// opt-out failed.
	MarketingStopped int `json:"marketingStopped"`
	MarketingResumed int `json:"marketingResumed"`
	Categories       int `json:"categories"`
	QueuedFailed     int `json:"queuedFailed"`
	// NotApplied lists the event's items that could not be applied, and
	// why; the other items were.
	NotApplied []string `json:"notApplied"`
}

func newWebhooksCmd(e *env) *cobra.Command {
	return noun("webhooks", "Apply stored webhook events from Meta again", newWebhooksReplayCmd(e))
}

// newWebhooksReplayCmd applies stored webhook events again: those not
// applied yet, one by id, or all received since a time.
func newWebhooksReplayCmd(e *env) *cobra.Command {
	var (
		id, since string
		out       output
	)
	cmd := &cobra.Command{
		Use:   "replay [--id ID | --since TIME]",
		Short: "Apply stored webhook events again (default: those not applied yet)",
		Long: "Applies stored webhook events again: without flags, every event not applied yet; with --id one\n" +
			"event, applied or not; with --since every event received since then. Replaying changes nothing\n" +
			"already applied. Exits 1 when an event fails to apply; it stays stored.",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		c := delivery.ReplayWebhookEvents{ID: id}
		if since != "" {
			if id != "" {
				return usagef("give --id or --since, not both")
			}
			var err error
			if c.Since, err = time.Parse(time.RFC3339, since); err != nil {
				return usagef("--since must be an RFC 3339 time, e.g. 2026-11-23T00:00:00Z")
			}
		}
		var h *delivery.ReplayWebhookEventsHandler
		return e.withApp(func() error {
			res, err := h.Handle(e.ctx, c)
			if err != nil {
				return err
			}
			failed := 0
			list := make([]replayedJSON, len(res))
			for i, r := range res {
				ev, rep := r.Event, r.Report
				list[i] = replayedJSON{ID: string(ev.ID), ReceivedAt: ev.ReceivedAt.Format(time.RFC3339Nano), Applied: r.Err == nil,
					Attempts: ev.Attempts, Statuses: rep.Statuses, Parked: rep.Parked, Inbound: rep.Inbound,
					OptedOut: rep.OptedOut, OptedIn: rep.OptedIn, Templates: rep.Templates, Identities: rep.Identities,
					Foreign: rep.Foreign, MarketingStopped: rep.MarketingStopped, MarketingResumed: rep.MarketingResumed,
					Categories: rep.Categories, QueuedFailed: rep.QueuedFailed, NotApplied: rep.Failed}
				if list[i].NotApplied == nil {
					list[i].NotApplied = []string{}
				}
				if r.Err != nil {
					failed++
					s := r.Err.Error()
					list[i].Error = &s
				}
			}
			if out.json {
				if err := printJSON(e.stdout, list); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "EVENT\tRECEIVED\tOUTCOME\tSTATUSES\tPARKED\tINBOUND\tOPTED OUT\tOPTED IN\tTEMPLATES\t"+
					"IDENTITIES\tFOREIGN\tMARKETING STOPPED\tMARKETING RESUMED\tCATEGORIES\tQUEUED FAILED")
				for _, r := range list {
					outcome := "applied"
					switch {
					case r.Error != nil:
						outcome = "failed: " + *r.Error
					case len(r.NotApplied) > 0:
						outcome = fmt.Sprintf("applied but %d item(s)", len(r.NotApplied))
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", r.ID, r.ReceivedAt, outcome,
						r.Statuses, r.Parked, r.Inbound, r.OptedOut, r.OptedIn, r.Templates, r.Identities, r.Foreign,
						r.MarketingStopped, r.MarketingResumed, r.Categories, r.QueuedFailed)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				for _, r := range list {
					for _, item := range r.NotApplied {
						fmt.Fprintf(e.stdout, "%s: not applied: %s\n", r.ID, item)
					}
				}
				fmt.Fprintf(e.stdout, "%d event(s) replayed, %d failed.\n", len(list), failed)
			}
			if failed > 0 {
				return fmt.Errorf("%d webhook event(s) failed to apply; they stay stored", failed)
			}
			return nil
		}, &h)
	})
	f := cmd.Flags()
	f.StringVar(&id, "id", "", "replay this event (whk_…), even if it was applied")
	f.StringVar(&since, "since", "", "replay every event received since this RFC 3339 time, applied or not")
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}
