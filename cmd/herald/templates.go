package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

func newTemplatesCmd(e *env) *cobra.Command {
	return noun("templates", "List, submit and delete the business account's message templates",
		newTemplatesListCmd(e), newTemplatesCreateCmd(e), newTemplatesDeleteCmd(e))
}

type templateJSON struct {
	Name        string `json:"name"`
	Language    string `json:"language"`
	Status      string `json:"status"`
	Category    string `json:"category"`
	WABAID      string `json:"wabaId"`
	ID          string `json:"id"`
	Body        string `json:"body"`
	Slots       int    `json:"slots"`
	Unsupported string `json:"unsupported,omitempty"`
}

func toTemplateJSON(t domain.SyncedTemplate) templateJSON {
	return templateJSON{Name: t.Name, Language: t.Language, Status: t.Status.String(), Category: t.Category,
		WABAID: t.Account, ID: t.ProviderID, Body: t.Definition.Body, Slots: len(t.Definition.Slots), Unsupported: t.Unsupported}
}

func newTemplatesListCmd(e *env) *cobra.Command {
	var out output
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the templates the last sync read (herald campaigns sync-templates), of every business account",
		Args:  noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		var h *app.ListTemplatesHandler
		return e.withApp(func() error {
			ts, err := h.Handle(e.ctx, app.ListTemplates{})
			if err != nil {
				return err
			}
			list := make([]templateJSON, len(ts))
			for i, t := range ts {
				list[i] = toTemplateJSON(t)
			}
			if out.json {
				return printJSON(e.stdout, list)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tLANGUAGE\tACCOUNT\tSTATUS\tCATEGORY\tSLOTS\tNOTE")
			for _, t := range list {
				note := t.Unsupported
				if note != "" {
					note = "cannot be sent by Herald: " + note
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", t.Name, t.Language, t.WABAID, t.Status, cmp.Or(t.Category, "-"), t.Slots, note)
			}
			return tw.Flush()
		}, &h)
	})
	out.register(cmd, "")
	return cmd
}

func newTemplatesCreateCmd(e *env) *cobra.Command {
	var (
		file, wabaID               string
		d                          domain.TemplateDraft
		headerText, body, footer   string
		headerExample              string
		bodyExamples, quickReplies []string
		out                        output
	)
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Submit a new template for Meta's review",
		Long: "Lints the template as Meta reviews it and prints every finding, one per line, without\n" +
			"submitting anything; otherwise submits it to the business account (HERALD_WHATSAPP_WABA_ID, or\n" +
			"the only account of the stored numbers; --waba-id chooses among several), where it is PENDING\n" +
			"until Meta's review. Give the template as a JSON file in POST\n" +
			"/v1/templates' shape (--file), or with flags for a simple one.",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		if file != "" {
			raw, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			if d, err = httpapi.DecodeTemplateDraft(raw); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
		} else {
			if headerText != "" {
				c := domain.DraftComponent{Type: "HEADER", Format: "TEXT", Text: headerText}
				if headerExample != "" {
					c.Example.HeaderText = []string{headerExample}
				}
				d.Components = append(d.Components, c)
			}
			d.Components = append(d.Components, domain.DraftComponent{Type: "BODY", Text: body,
				Example: domain.DraftExample{BodyText: bodyExamples}})
			if footer != "" {
				d.Components = append(d.Components, domain.DraftComponent{Type: "FOOTER", Text: footer})
			}
			if len(quickReplies) > 0 {
				c := domain.DraftComponent{Type: "BUTTONS"}
				for _, q := range quickReplies {
					c.Buttons = append(c.Buttons, domain.DraftButton{Type: "QUICK_REPLY", Text: q})
				}
				d.Components = append(d.Components, c)
			}
		}
		var h *app.SubmitTemplateHandler
		return e.withApp(func() error {
			t, err := h.Handle(e.ctx, app.SubmitTemplate{Draft: d, Mode: domain.ModeLive, WABAID: wabaID})
			if de, ok := errors.AsType[*domain.TemplateInvalidError](err); ok {
				for _, f := range de.Findings {
					fmt.Fprintf(e.stderr, "%s: %s (%s)\n", cmp.Or(f.Path, "template"), f.Message, f.Code)
				}
				return fmt.Errorf("the template was not submitted: %d finding%s", len(de.Findings), map[bool]string{true: "s"}[len(de.Findings) != 1])
			}
			if err != nil {
				return err
			}
			if out.json {
				return printJSON(e.stdout, toTemplateJSON(t))
			}
			fmt.Fprintf(e.stdout, "template %s (%s) submitted: %s, Meta id %s\n", t.Name, t.Language, t.Status, t.ProviderID)
			return nil
		}, &h)
	})
	f := cmd.Flags()
	f.StringVar(&wabaID, "waba-id", "", "the business account to submit to, when the numbers belong to several")
	f.StringVar(&file, "file", "", "the template as JSON, in POST /v1/templates' shape (the other template flags are then ignored)")
	f.StringVar(&d.Name, "name", "", "the template's name: lowercase letters, digits and underscores")
	f.StringVar(&d.Language, "language", "en_US", "the template's language")
	f.StringVar(&d.Category, "category", "UTILITY", "MARKETING, UTILITY or AUTHENTICATION")
	f.StringVar(&headerText, "header-text", "", "a text header, with at most one placeholder {{1}}")
	f.StringVar(&headerExample, "header-example", "", "the header placeholder's sample value")
	f.StringVar(&body, "body", "", "the body, placeholders {{1}}, {{2}}, … with words around them")
	f.StringArrayVar(&bodyExamples, "example", nil, "a body placeholder's sample value, in order (repeat)")
	f.StringVar(&footer, "footer", "", "the footer")
	f.StringArrayVar(&quickReplies, "quick-reply", nil, "a quick-reply button's text (repeat)")
	out.register(cmd, "")
	return cmd
}

func newTemplatesDeleteCmd(e *env) *cobra.Command {
	var wabaID string
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete every language of a template from the business account",
		Args:  oneArg("one template name"),
	}
	cmd.RunE = e.action(func(_ *cobra.Command, args []string) error {
		var h *app.DeleteTemplateHandler
		return e.withApp(func() error {
			if err := h.Handle(e.ctx, app.DeleteTemplate{Name: args[0], Mode: domain.ModeLive, WABAID: wabaID}); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "template %s deleted\n", args[0])
			return nil
		}, &h)
	})
	cmd.Flags().StringVar(&wabaID, "waba-id", "", "the business account to delete from, when the numbers belong to several")
	return cmd
}
