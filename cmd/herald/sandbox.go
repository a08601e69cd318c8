package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

func newSandboxCmd(e *env) *cobra.Command {
	return noun("sandbox", "Play the customer's side in test mode", newSandboxInboundCmd(e))
}

func newSandboxInboundCmd(e *env) *cobra.Command {
	var (
		workspace, from, text string
		out                   output
	)
	cmd := &cobra.Command{
		Use:   "inbound --from +E164 --text T [--to-workspace ID]",
		Short: "Simulate a customer's message: opens their test contact's 24-hour window",
		Long: "Records a text message from --from to the business in test mode, as if the customer had written on WhatsApp: " +
			"the workspace's test contact for the number (made if new) gets it in their thread, and their 24-hour " +
			"customer-service window opens, so POST /v1/messages with an sk_test_ key can answer it. Live contacts are never touched.",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		if err := out.check(); err != nil {
			return err
		}
		if from == "" || text == "" {
			return usagef("--from and --text are required")
		}
		var h *app.SimulateInboundHandler
		return e.withApp(func() error {
			res, err := h.Handle(e.ctx, app.SimulateInbound{Workspace: workspace, From: from, Text: text})
			if err != nil {
				return err
			}
			exp, _ := res.Contact.ServiceWindowExpiresAt()
			switch {
			case out.json:
				return printJSON(e.stdout, map[string]string{"contactId": string(res.Contact.ID),
					"workspaceId": string(res.Contact.Workspace), "mode": domain.ModeTest.String(),
					"entryId": string(res.Entry.ID), "providerMessageId": res.Entry.ProviderID,
					"serviceWindowExpiresAt": exp.Format(time.RFC3339Nano)})
			case out.quiet:
				fmt.Fprintln(e.stdout, res.Contact.ID)
				return nil
			}
			fmt.Fprintf(e.stdout, "test contact %s (%s) wrote %q; their window is open until %s\n",
				res.Contact.ID, res.Contact.Phone, text, exp.Format(time.RFC3339))
			return nil
		}, &h)
	})
	cmd.Flags().StringVar(&workspace, "to-workspace", "", "workspace id (default: the default workspace)")
	cmd.Flags().StringVar(&from, "from", "", "the customer's number, E.164 (required)")
	cmd.Flags().StringVar(&text, "text", "", "what they write (required)")
	out.register(cmd, "the test contact's id")
	e.appFlags(cmd)
	return cmd
}
