package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

type createdKeyJSON struct {
	ID          string `json:"id"`
	Token       string `json:"token"`
	Identifier  string `json:"identifier"`
	Mode        string `json:"mode"`
	WorkspaceID string `json:"workspaceId"`
}

type keyJSON struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Identifier  string  `json:"identifier"`
	Mode        string  `json:"mode"`
	WorkspaceID string  `json:"workspaceId"`
	CreatedAt   string  `json:"createdAt"`
	LastUsedAt  *string `json:"lastUsedAt"`
	RevokedAt   *string `json:"revokedAt"`
}

func newKeysCmd(e *env) *cobra.Command {
	return noun("keys", "Create, list and revoke the API keys that call /v1",
		newKeysCreateCmd(e), newKeysListCmd(e), newKeysRevokeCmd(e))
}

func newKeysCreateCmd(e *env) *cobra.Command {
	var (
		name, mode, workspace string
		out                   output
	)
	cmd := &cobra.Command{
		Use:   "create --name N [--mode live|test]",
		Short: "Create an API key; its token is printed once",
		Long: "Creates an API key and prints its token, the only time it is shown: Herald stores only its hash.\n" +
			"Send the token in the X-API-KEY header. Test keys (the default) send in the sandbox, live keys through WhatsApp.",
		Example: "  export KEY=$(herald keys create --name dev --mode test -q)",
		Args:    noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		if err := out.check(); err != nil {
			return err
		}
		if name == "" {
			return usagef("--name is required")
		}
		m, err := domain.ParseKeyMode(mode)
		if err != nil {
			return usagef("--mode must be live or test")
		}
		var h *app.CreateKeyHandler
		return e.withApp(func() error {
			k, err := h.Handle(e.ctx, app.CreateKey{Workspace: workspace, Name: name, Mode: m})
			if err != nil {
				return err
			}
			if m == domain.ModeLive && !e.cfg.whatsApp().Configured() {
				fmt.Fprint(e.stderr, liveKeyWarning)
			}
			switch {
			case out.json:
				return printJSON(e.stdout, createdKeyJSON{ID: string(k.Key.ID), Token: k.Token.Plaintext(),
					Identifier: k.Key.Identifier, Mode: k.Key.Mode.String(), WorkspaceID: string(k.Key.Workspace)})
			case out.quiet:
				fmt.Fprintln(e.stdout, k.Token.Plaintext())
				return nil
			}
			fmt.Fprintf(e.stdout, "API key %s (%s, %s) created in workspace %s.\n\n    %s\n\n"+
				"This is the only time the token is shown: store it now. Send it in the X-API-KEY header.\n",
				k.Key.Name, k.Key.ID, k.Key.Mode, k.Key.Workspace, k.Token.Plaintext())
			return nil
		}, &h)
	})
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "key name (required)")
	f.StringVar(&mode, "mode", "test", "live or test")
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "the token")
	e.appFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]string{"test", "live"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// liveKeyWarning is what keys create --mode live says on stderr when the
// settings it read have no Cloud API number: a server with them refuses
// the key's sends rather than route them to the sandbox.
const liveKeyWarning = "warning: these settings have no WhatsApp Cloud API number (HERALD_WHATSAPP_ACCESS_TOKEN and " +
	"HERALD_WHATSAPP_PHONE_NUMBER_ID are not both set). A server started with them answers this live key's sends with " +
	"503 whatsapp_not_configured: live messages go only to WhatsApp. Set both on the server, or use --mode test to send in the sandbox.\n"

func newKeysListCmd(e *env) *cobra.Command {
	var (
		workspace string
		out       output
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the workspace's keys, newest first (never their tokens)",
		Args:  noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		var h *app.ListKeysHandler
		return e.withApp(func() error {
			ks, err := h.Handle(e.ctx, app.ListKeys{Workspace: workspace})
			if err != nil {
				return err
			}
			if out.json {
				list := make([]keyJSON, len(ks))
				for i, k := range ks {
					list[i] = toKeyJSON(k)
				}
				return printJSON(e.stdout, list)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tIDENTIFIER\tMODE\tCREATED\tLAST USED\tSTATUS")
			for _, k := range ks {
				status := "active"
				if k.RevokedAt != nil {
					status = "revoked " + k.RevokedAt.Format(time.DateTime)
				}
				last := "never"
				if k.LastUsedAt != nil {
					last = k.LastUsedAt.Format(time.DateTime)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Identifier, k.Mode,
					k.CreatedAt.Format(time.DateTime), last, status)
			}
			return tw.Flush()
		}, &h)
	})
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

func newKeysRevokeCmd(e *env) *cobra.Command {
	var (
		workspace string
		out       output
	)
	cmd := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key; servers refuse it within HERALD_KEY_CACHE_TTL",
		Args:  oneArg("one key id"),
	}
	cmd.RunE = e.action(func(_ *cobra.Command, args []string) error {
		var h *app.RevokeKeyHandler
		return e.withApp(func() error {
			k, err := h.Handle(e.ctx, app.RevokeKey{Workspace: workspace, KeyID: args[0]})
			if err != nil {
				return err
			}
			if out.json {
				return printJSON(e.stdout, map[string]string{"id": string(k.ID), "revokedAt": k.RevokedAt.Format(time.RFC3339Nano)})
			}
			fmt.Fprintf(e.stdout, "API key %s revoked; servers stop accepting it within the key cache TTL (HERALD_KEY_CACHE_TTL).\n", k.ID)
			return nil
		}, &h)
	})
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

// workspaceFlag registers --workspace.
func workspaceFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "workspace", "", "workspace id (default: the default workspace)")
}

func toKeyJSON(k domain.APIKey) keyJSON {
	out := keyJSON{ID: string(k.ID), Name: k.Name, Identifier: k.Identifier, Mode: k.Mode.String(),
		WorkspaceID: string(k.Workspace), CreatedAt: k.CreatedAt.Format(time.RFC3339Nano)}
	if k.LastUsedAt != nil {
		s := k.LastUsedAt.Format(time.RFC3339Nano)
		out.LastUsedAt = &s
	}
	if k.RevokedAt != nil {
		s := k.RevokedAt.Format(time.RFC3339Nano)
		out.RevokedAt = &s
	}
	return out
}
