package main

import (
	"flag"
	"fmt"

	"github.com/heraldhq/herald/app"
)

func workspacesCreate(e env, args []string) error {
	var name string
	c, err := parseCommand(e, "workspaces create", args, "", func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "workspace name (required)")
	})
	if err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("%w: --name is required", errUsage)
	}
	var h *app.CreateWorkspaceHandler
	return c.withApp(e, func() error {
		w, err := h.Handle(e.ctx, app.CreateWorkspace{Name: name})
		if err != nil {
			return err
		}
		if *c.json {
			return c.printJSON(e.stdout, map[string]string{"id": string(w.ID), "name": w.Name})
		}
		fmt.Fprintf(e.stdout, "workspace %s created: %s\n", w.Name, w.ID)
		return nil
	}, &h)
}
