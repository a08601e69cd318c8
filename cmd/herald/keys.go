package main

import (
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

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

func keysCreate(e env, args []string) error {
	var name, mode, workspace string
	c, err := parseCommand(e, "keys create", args, "", func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "key name (required)")
		fs.StringVar(&mode, "mode", "test", "live or test")
		workspaceFlag(fs, &workspace)
	})
	if err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("%w: --name is required", errUsage)
	}
	m, err := domain.ParseKeyMode(mode)
	if err != nil {
		return fmt.Errorf("%w: --mode must be live or test", errUsage)
	}
	var h *app.CreateKeyHandler
	return c.withApp(e, func() error {
		k, err := h.Handle(e.ctx, app.CreateKey{Workspace: workspace, Name: name, Mode: m})
		if err != nil {
			return err
		}
		if m == domain.ModeLive && !c.cfg.whatsApp().Configured() {
			fmt.Fprint(e.stderr, liveKeyWarning)
		}
		if *c.json {
			return c.printJSON(e.stdout, createdKeyJSON{ID: string(k.Key.ID), Token: k.Token.Plaintext(),
				Identifier: k.Key.Identifier, Mode: k.Key.Mode.String(), WorkspaceID: string(k.Key.Workspace)})
		}
		fmt.Fprintf(e.stdout, "API key %s (%s, %s) created in workspace %s.\n\n    %s\n\n"+
			"This is the only time the token is shown: store it now. Send it in the X-API-KEY header.\n",
			k.Key.Name, k.Key.ID, k.Key.Mode, k.Key.Workspace, k.Token.Plaintext())
		return nil
	}, &h)
}

// liveKeyWarning is what keys create --mode live says on stderr when the
// settings it read have no Cloud API number: a server with them refuses
// the key's sends rather than route them to the sandbox.
const liveKeyWarning = "warning: these settings have no WhatsApp Cloud API number (HERALD_WHATSAPP_ACCESS_TOKEN and " +
	"HERALD_WHATSAPP_PHONE_NUMBER_ID are not both set). A server started with them answers this live key's sends with " +
	"503 whatsapp_not_configured: live messages go only to WhatsApp. Set both on the server, or use --mode test to send in the sandbox.\n"

func keysList(e env, args []string) error {
	var workspace string
	c, err := parseCommand(e, "keys list", args, "", func(fs *flag.FlagSet) {
		workspaceFlag(fs, &workspace)
	})
	if err != nil {
		return err
	}
	var h *app.ListKeysHandler
	return c.withApp(e, func() error {
		ks, err := h.Handle(e.ctx, app.ListKeys{Workspace: workspace})
		if err != nil {
			return err
		}
		if *c.json {
			out := make([]keyJSON, len(ks))
			for i, k := range ks {
				out[i] = toKeyJSON(k)
			}
			return c.printJSON(e.stdout, out)
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
}

func keysRevoke(e env, args []string) error {
	var workspace string
	c, err := parseCommand(e, "keys revoke", args, "one key id", func(fs *flag.FlagSet) {
		workspaceFlag(fs, &workspace)
	})
	if err != nil {
		return err
	}
	var h *app.RevokeKeyHandler
	return c.withApp(e, func() error {
		k, err := h.Handle(e.ctx, app.RevokeKey{Workspace: workspace, KeyID: c.args[0]})
		if err != nil {
			return err
		}
		if *c.json {
			return c.printJSON(e.stdout, map[string]string{"id": string(k.ID), "revokedAt": k.RevokedAt.Format(time.RFC3339Nano)})
		}
		fmt.Fprintf(e.stdout, "API key %s revoked; servers stop accepting it within the key cache TTL (HERALD_KEY_CACHE_TTL).\n", k.ID)
		return nil
	}, &h)
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
