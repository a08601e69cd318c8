package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/domain"
)

type endpointJSON struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Description    string   `json:"description"`
	Mode           string   `json:"mode"`
	Status         string   `json:"status"`
	DisabledReason *string  `json:"disabledReason"`
	DisabledAt     *string  `json:"disabledAt"`
	WorkspaceID    string   `json:"workspaceId"`
	CreatedAt      string   `json:"createdAt"`
	Secret         string   `json:"secret,omitempty"`
}

func toEndpointJSON(ep domain.WebhookEndpoint) endpointJSON {
	out := endpointJSON{ID: string(ep.ID), URL: ep.URL, Events: ep.Events.Names(), Description: ep.Description,
		Mode: ep.Mode.String(), Status: ep.Status.String(), WorkspaceID: string(ep.Workspace),
		CreatedAt: ep.CreatedAt.Format(time.RFC3339Nano)}
	if !ep.DisabledReason.IsZero() {
		r := ep.DisabledReason.String()
		out.DisabledReason = &r
	}
	if ep.DisabledAt != nil {
		s := ep.DisabledAt.Format(time.RFC3339Nano)
		out.DisabledAt = &s
	}
	return out
}

func newEndpointsCmd(e *env) *cobra.Command {
	return noun("endpoints", "Add, list and delete the webhook endpoints that receive events",
		newEndpointsCreateCmd(e), newEndpointsListCmd(e), newEndpointsDeleteCmd(e))
}

// modeFlag parses --mode: live, test, or (when optional) empty for both.
func parseModeFlag(s string, optional bool) (domain.KeyMode, error) {
	if s == "" && optional {
		return domain.KeyMode{}, nil
	}
	m, err := domain.ParseKeyMode(s)
	if err != nil {
		return domain.KeyMode{}, usagef("--mode must be live or test")
	}
	return m, nil
}

func newEndpointsCreateCmd(e *env) *cobra.Command {
	var (
		url, mode, workspace, description string
		types                             []string
		out                               output
	)
	cmd := &cobra.Command{
		Use:   "create --url URL [--events TYPE,…] [--mode live|test]",
		Short: "Add a webhook endpoint; its signing secret is printed once",
		Long: "Adds an endpoint that receives the workspace's events of one mode (test by default), signed\n" +
			"with a secret printed this once (Standard Webhooks). --events takes event types, or * (the default)\n" +
			"for every type.",
		Example: "  export WEBHOOK_SECRET=$(herald endpoints create --url https://hooks.example.com/herald --events message.delivered,message.failed -q)",
		Args:    noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		if err := out.check(); err != nil {
			return err
		}
		if url == "" {
			return usagef("--url is required")
		}
		m, err := parseModeFlag(mode, false)
		if err != nil {
			return err
		}
		var (
			ws *app.ResolveWorkspaceHandler
			h  *events.CreateEndpointHandler
		)
		return e.withApp(func() error {
			wsID, err := ws.Handle(e.ctx, workspace)
			if err != nil {
				return err
			}
			res, err := h.Handle(e.ctx, events.CreateEndpoint{Workspace: wsID, Mode: m, URL: url, Events: types, Description: description})
			if err != nil {
				return err
			}
			switch {
			case out.json:
				j := toEndpointJSON(res.Endpoint)
				j.Secret = res.Secret
				return printJSON(e.stdout, j)
			case out.quiet:
				fmt.Fprintln(e.stdout, res.Secret)
				return nil
			}
			fmt.Fprintf(e.stdout, "Webhook endpoint %s (%s) created for %s events: %s\n\n    %s\n\n"+
				"This is the only time the secret is shown: store it now. Verify each delivery's webhook-signature with it.\n",
				res.Endpoint.ID, res.Endpoint.Mode, strings.Join(res.Endpoint.Events.Names(), ", "), res.Endpoint.URL, res.Secret)
			return nil
		}, &ws, &h)
	})
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "the endpoint's https URL (required)")
	f.StringSliceVar(&types, "events", []string{domain.SubscribeAll}, "event types, comma-separated, or * for every type")
	f.StringVar(&description, "description", "", "what the endpoint is for")
	f.StringVar(&mode, "mode", "test", "live or test: the events of that mode's traffic")
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "the secret")
	e.appFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]string{"test", "live"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func newEndpointsListCmd(e *env) *cobra.Command {
	var (
		mode, workspace string
		out             output
	)
	cmd := &cobra.Command{
		Use:   "list [--mode live|test]",
		Short: "List the workspace's webhook endpoints, oldest first (never their secrets)",
		Args:  noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		m, err := parseModeFlag(mode, true)
		if err != nil {
			return err
		}
		var (
			ws *app.ResolveWorkspaceHandler
			h  *events.ListEndpointsHandler
		)
		return e.withApp(func() error {
			wsID, err := ws.Handle(e.ctx, workspace)
			if err != nil {
				return err
			}
			eps, err := h.Handle(e.ctx, events.ListEndpoints{Workspace: wsID, Mode: m})
			if err != nil {
				return err
			}
			if out.json {
				list := make([]endpointJSON, len(eps))
				for i, ep := range eps {
					list[i] = toEndpointJSON(ep)
				}
				return printJSON(e.stdout, list)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tMODE\tSTATUS\tEVENTS\tURL")
			for _, ep := range eps {
				status := ep.Status.String()
				if ep.DisabledAt != nil {
					status += " (" + ep.DisabledReason.String() + ", " + ep.DisabledAt.Format(time.DateTime) + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", ep.ID, ep.Mode, status, strings.Join(ep.Events.Names(), ","), ep.URL)
			}
			return tw.Flush()
		}, &ws, &h)
	})
	cmd.Flags().StringVar(&mode, "mode", "", "live or test (default: both)")
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

func newEndpointsDeleteCmd(e *env) *cobra.Command {
	var (
		workspace string
		out       output
	)
	cmd := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a webhook endpoint with its deliveries; the events stay",
		Args:  oneArg("one endpoint id"),
	}
	cmd.RunE = e.action(func(_ *cobra.Command, args []string) error {
		var (
			ws *app.ResolveWorkspaceHandler
			h  *events.DeleteEndpointHandler
		)
		return e.withApp(func() error {
			wsID, err := ws.Handle(e.ctx, workspace)
			if err != nil {
				return err
			}
			if err := h.Handle(e.ctx, events.DeleteEndpoint{Workspace: wsID, ID: args[0]}); err != nil {
				return err
			}
			if out.json {
				return printJSON(e.stdout, map[string]any{"id": args[0], "deleted": true})
			}
			fmt.Fprintf(e.stdout, "Webhook endpoint %s deleted.\n", args[0])
			return nil
		}, &ws, &h)
	})
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}
