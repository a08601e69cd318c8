package main

import (
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/heraldhq/herald/app"
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
	// NotApplied lists the event's items that could not be applied, and
	// why; the other items were.
	NotApplied []string `json:"notApplied"`
}

// webhooksReplay applies stored webhook events again: those not applied yet,
// one by id, or all received since a time.
func webhooksReplay(e env, args []string) error {
	var id, since string
	c, err := parseCommand(e, "webhooks replay", args, "", func(fs *flag.FlagSet) {
		fs.StringVar(&id, "id", "", "replay this event (evt_…), even if it was applied")
		fs.StringVar(&since, "since", "", "replay every event received since this RFC 3339 time, applied or not")
	})
	if err != nil {
		return err
	}
	cmd := app.ReplayWebhookEvents{ID: id}
	if since != "" {
		if id != "" {
			return fmt.Errorf("%w: give --id or --since, not both", errUsage)
		}
		if cmd.Since, err = time.Parse(time.RFC3339, since); err != nil {
			return fmt.Errorf("%w: --since must be an RFC 3339 time, e.g. 2026-11-23T00:00:00Z", errUsage)
		}
	}
	var h *app.ReplayWebhookEventsHandler
	return c.withApp(e, func() error {
		res, err := h.Handle(e.ctx, cmd)
		if err != nil {
			return err
		}
		failed := 0
		out := make([]replayedJSON, len(res))
		for i, r := range res {
			ev, rep := r.Event, r.Report
			out[i] = replayedJSON{ID: string(ev.ID), ReceivedAt: ev.ReceivedAt.Format(time.RFC3339Nano), Applied: r.Err == nil,
				Attempts: ev.Attempts, Statuses: rep.Statuses, Parked: rep.Parked, Inbound: rep.Inbound,
				OptedOut: rep.OptedOut, OptedIn: rep.OptedIn, Templates: rep.Templates, NotApplied: rep.Failed}
			if out[i].NotApplied == nil {
				out[i].NotApplied = []string{}
			}
			if r.Err != nil {
				failed++
				s := r.Err.Error()
				out[i].Error = &s
			}
		}
		if *c.json {
			if err := c.printJSON(e.stdout, out); err != nil {
				return err
			}
		} else {
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "EVENT\tRECEIVED\tOUTCOME\tSTATUSES\tPARKED\tINBOUND\tOPTED OUT\tOPTED IN\tTEMPLATES")
			for _, r := range out {
				outcome := "applied"
				switch {
				case r.Error != nil:
					outcome = "failed: " + *r.Error
				case len(r.NotApplied) > 0:
					outcome = fmt.Sprintf("applied but %d item(s)", len(r.NotApplied))
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", r.ID, r.ReceivedAt, outcome,
					r.Statuses, r.Parked, r.Inbound, r.OptedOut, r.OptedIn, r.Templates)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, r := range out {
				for _, item := range r.NotApplied {
					fmt.Fprintf(e.stdout, "%s: not applied: %s\n", r.ID, item)
				}
			}
			fmt.Fprintf(e.stdout, "%d event(s) replayed, %d failed.\n", len(out), failed)
		}
		if failed > 0 {
			return fmt.Errorf("%d webhook event(s) failed to apply; they stay stored", failed)
		}
		return nil
	}, &h)
}
