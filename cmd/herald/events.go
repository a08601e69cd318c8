package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/domain"
)

type eventJSON struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Mode       string          `json:"mode"`
	OccurredAt string          `json:"occurredAt"`
	Body       json.RawMessage `json:"body"`
}

func newEventsCmd(e *env) *cobra.Command {
	return noun("events", "List the events told to webhook endpoints, and send them again",
		newEventsListCmd(e), newEventsRedeliverCmd(e))
}

func newEventsListCmd(e *env) *cobra.Command {
	var (
		mode, workspace, after string
		types                  []string
		limit                  int
		out                    output
	)
	cmd := &cobra.Command{
		Use:   "list [--mode live|test] [--types TYPE,…] [--after CURSOR]",
		Short: "List events oldest first, as the pull API does; the next cursor goes to stderr",
		Long: "Lists the workspace's events of one mode (test by default) oldest first, from the start or after a\n" +
			"cursor. The cursor to continue from is printed on stderr (in --json, as nextCursor).",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		m, err := parseModeFlag(mode, false)
		if err != nil {
			return err
		}
		var (
			ws *app.ResolveWorkspaceHandler
			h  *events.ListEventsHandler
		)
		return e.withApp(func() error {
			wsID, err := ws.Handle(e.ctx, workspace)
			if err != nil {
				return err
			}
			page, err := h.Handle(e.ctx, events.ListEvents{Workspace: wsID, Mode: m, After: after, Types: types, Limit: limit})
			if err != nil {
				return err
			}
			if out.json {
				list := make([]eventJSON, len(page.Events))
				for i, ev := range page.Events {
					list[i] = eventJSON{ID: string(ev.ID), Type: ev.Type.String(), Mode: ev.Mode.String(),
						OccurredAt: ev.OccurredAt.Format(time.RFC3339Nano), Body: ev.Body}
				}
				return printJSON(e.stdout, map[string]any{"data": list, "nextCursor": page.NextCursor, "hasMore": page.More})
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTYPE\tMODE\tOCCURRED")
			for _, ev := range page.Events {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ev.ID, ev.Type, ev.Mode, ev.OccurredAt.Format(time.DateTime))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "next: --after %s\n", page.NextCursor)
			return nil
		}, &ws, &h)
	})
	f := cmd.Flags()
	f.StringVar(&mode, "mode", "test", "live or test")
	f.StringSliceVar(&types, "types", nil, "only these event types, comma-separated")
	f.StringVar(&after, "after", "", "continue after this cursor")
	f.IntVar(&limit, "limit", events.DefaultEventPage, fmt.Sprintf("events per page, 1 to %d", events.MaxEventPage))
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

func newEventsRedeliverCmd(e *env) *cobra.Command {
	var (
		workspace, endpoint string
		out                 output
	)
	cmd := &cobra.Command{
		Use:   "redeliver ID [--endpoint ID]",
		Short: "Send an event again now, to every matching endpoint or to one",
		Long: "Sends the event again in a new series of attempts: to every enabled endpoint whose subscription\n" +
			"matches it, or with --endpoint to that endpoint only. A running server delivers it.",
		Args: oneArg("one event id"),
	}
	cmd.RunE = e.action(func(_ *cobra.Command, args []string) error {
		var (
			ws *app.ResolveWorkspaceHandler
			h  *events.RedeliverEventHandler
		)
		return e.withApp(func() error {
			wsID, err := ws.Handle(e.ctx, workspace)
			if err != nil {
				return err
			}
			n, err := h.Handle(e.ctx, events.RedeliverEvent{Workspace: wsID, Mode: domain.KeyMode{}, ID: args[0], Endpoint: endpoint})
			if err != nil {
				return err
			}
			if out.json {
				return printJSON(e.stdout, map[string]any{"id": args[0], "deliveries": n})
			}
			fmt.Fprintf(e.stdout, "Event %s: %d deliver%s made pending; a running server sends %s now.\n", args[0], n,
				map[bool]string{true: "y", false: "ies"}[n == 1], map[bool]string{true: "it", false: "them"}[n == 1])
			return nil
		}, &ws, &h)
	})
	cmd.Flags().StringVar(&endpoint, "endpoint", "", "only to this endpoint (whe_…)")
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}
