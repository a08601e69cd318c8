package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/app"
)

func newWorkspacesCmd(e *env) *cobra.Command {
	return noun("workspaces", "Create workspaces: each has its own keys, campaigns and contacts", newWorkspacesCreateCmd(e))
}

func newWorkspacesCreateCmd(e *env) *cobra.Command {
	var (
		name string
		out  output
	)
	cmd := &cobra.Command{
		Use:   "create --name N",
		Short: "Create a workspace",
		Args:  noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		if err := out.check(); err != nil {
			return err
		}
		if name == "" {
			return usagef("--name is required")
		}
		var h *app.CreateWorkspaceHandler
		return e.withApp(func() error {
			w, err := h.Handle(e.ctx, app.CreateWorkspace{Name: name})
			if err != nil {
				return err
			}
			switch {
			case out.json:
				return printJSON(e.stdout, map[string]string{"id": string(w.ID), "name": w.Name})
			case out.quiet:
				fmt.Fprintln(e.stdout, w.ID)
				return nil
			}
			fmt.Fprintf(e.stdout, "workspace %s created: %s\n", w.Name, w.ID)
			return nil
		}, &h)
	})
	cmd.Flags().StringVar(&name, "name", "", "workspace name (required)")
	out.register(cmd, "the workspace's id")
	e.appFlags(cmd)
	return cmd
}
