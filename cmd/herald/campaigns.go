package main

import (
	"cmp"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type placeholderJSON struct {
	Index int    `json:"index"`
	Label string `json:"label"`
}

type campaignJSON struct {
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	Status         string            `json:"status"`
	TemplateName   string            `json:"templateName"`
	Language       string            `json:"language"`
	TemplateStatus string            `json:"templateStatus,omitempty"`
	Category       string            `json:"category,omitempty"`
	HeaderFormat   string            `json:"headerFormat"`
	Body           string            `json:"body"`
	Placeholders   []placeholderJSON `json:"placeholders"`
	WorkspaceID    string            `json:"workspaceId"`
	CreatedAt      string            `json:"createdAt"`
}

func toCampaignJSON(c domain.Campaign) campaignJSON {
	out := campaignJSON{ID: string(c.ID), Name: c.Name, Status: c.Status.String(), TemplateName: c.Template.Name,
		Language: c.Template.Language, TemplateStatus: c.TemplateStatus.String(), Category: c.Category.String(),
		HeaderFormat: c.Template.HeaderFormat.String(), Body: c.Template.Body,
		Placeholders: make([]placeholderJSON, len(c.Template.Placeholders)), WorkspaceID: string(c.Workspace),
		CreatedAt: c.CreatedAt.Format("2006-01-02T15:04:05.999999Z07:00")}
	for i, p := range c.Template.Placeholders {
		out.Placeholders[i] = placeholderJSON{Index: p.Index, Label: p.Label}
	}
	return out
}

func newCampaignsCmd(e *env) *cobra.Command {
	return noun("campaigns", "Create, list, activate and pause campaigns; sync templates from Meta",
		newCampaignsCreateCmd(e), newCampaignsListCmd(e),
		newCampaignsSetStatusCmd(e, domain.CampaignActive), newCampaignsSetStatusCmd(e, domain.CampaignPaused),
		newCampaignsMapCmd(e), newCampaignsSyncTemplatesCmd(e))
}

func newCampaignsCreateCmd(e *env) *cobra.Command {
	var (
		c        app.CreateCampaign
		header   string
		category string
		out      output
	)
	cmd := &cobra.Command{
		Use:   "create --name N --template-name T --language L",
		Short: "Create a campaign: a template and the meaning of each placeholder",
		Long: "Creates a campaign: a WhatsApp template and what each of its placeholders means.\n\n" +
			"Without --body the campaign takes the header, body and footer of the synced template of that\n" +
			"name and language (herald campaigns sync-templates). With --body the template is defined here,\n" +
			"for the sandbox or before Meta has reviewed it.\n\n" +
			"The template's category decides who still receives it: a contact who stopped the business's\n" +
			"marketing messages on WhatsApp gets utility and authentication templates, not marketing ones.\n" +
			"A synced template has Meta's category; --category gives one to a template defined here, and\n" +
			"without a category a template counts as marketing.",
		Example: "  export CAMPAIGN=$(herald campaigns create --name Welcome --template-name welcome --language en_US \\\n" +
			"      --body 'Hi {{1}}, your code is {{2}}' --variable-label 'First name' --variable-label Code --activate -q)",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		if err := out.check(); err != nil {
			return err
		}
		for _, f := range []struct{ flag, v string }{{"--name", c.Name}, {"--template-name", c.TemplateName}, {"--language", c.Language}} {
			if f.v == "" {
				return usagef("%s is required", f.flag)
			}
		}
		if c.Body == "" && (header != "" || c.HeaderText != "" || c.Footer != "") {
			return usagef("--header-format, --header-text and --footer define a template with --body; a synced template brings its own")
		}
		if header != "" {
			hf, err := domain.ParseHeaderFormat(header)
			if err != nil {
				return usagef("--header-format must be none, text, image, video, document or location")
			}
			c.HeaderFormat = hf
		}
		if category != "" {
			cat, err := domain.ParseTemplateCategory(category)
			if err != nil || cat != domain.CategoryMarketing && cat != domain.CategoryUtility && cat != domain.CategoryAuthentication {
				return usagef("--category must be marketing, utility or authentication")
			}
			c.Category = cat
		}
		var h *app.CreateCampaignHandler
		return e.withApp(func() error {
			camp, err := h.Handle(e.ctx, c)
			if err != nil {
				return err
			}
			switch {
			case out.json:
				return printJSON(e.stdout, toCampaignJSON(camp))
			case out.quiet:
				fmt.Fprintln(e.stdout, camp.ID)
				return nil
			}
			fmt.Fprintf(e.stdout, "campaign %s created (%s): %s\n", camp.Name, camp.Status, camp.ID)
			if !camp.TemplateStatus.IsZero() && camp.TemplateStatus != domain.TemplateApproved {
				fmt.Fprintf(e.stdout, "its template is %s at Meta: the campaign can be activated once Meta approves it\n", camp.TemplateStatus)
			} else if camp.Status != domain.CampaignActive {
				fmt.Fprintf(e.stdout, "activate it with: herald campaigns activate %s\n", camp.ID)
			}
			return nil
		}, &h)
	})
	f := cmd.Flags()
	f.StringVar(&c.Name, "name", "", "campaign name (required)")
	f.StringVar(&c.TemplateName, "template-name", "", "WhatsApp template name (required)")
	f.StringVar(&c.Language, "language", "", "template language code, e.g. en_US (required)")
	f.StringVar(&c.Body, "body", "", `template body with positional placeholders, e.g. "Hi {{1}}"; without it, the synced template's parts are used`)
	f.StringVar(&header, "header-format", "", "none, text, image, video, document or location (with --body; default none)")
	f.StringVar(&c.HeaderText, "header-text", "", "header text, for --header-format text")
	f.StringVar(&c.Footer, "footer", "", "footer text")
	f.StringVar(&category, "category", "",
		"marketing, utility or authentication (a synced template has Meta's; none counts as marketing)")
	f.StringArrayVar(&c.VariableLabels, "variable-label", nil, "what {{n}} means, as a `label`; repeat in placeholder order")
	f.BoolVar(&c.Activate, "activate", false, "activate the campaign at once")
	workspaceFlag(cmd, &c.Workspace)
	out.register(cmd, "the campaign's id")
	e.appFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("header-format", cobra.FixedCompletions(
		[]string{"none", "text", "image", "video", "document", "location"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("category", cobra.FixedCompletions(
		[]string{"marketing", "utility", "authentication"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func newCampaignsListCmd(e *env) *cobra.Command {
	var (
		workspace string
		out       output
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the workspace's campaigns, newest first",
		Args:  noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		var (
			list *app.ListCampaignsHandler
			def  *app.EnsureDefaultWorkspaceHandler
		)
		return e.withApp(func() error {
			ws, err := workspaceOrDefault(e, def, workspace)
			if err != nil {
				return err
			}
			var all []domain.Campaign
			page := ports.Page{Limit: app.MaxPageSize}
			for {
				res, err := list.Handle(e.ctx, app.ListCampaigns{Workspace: ws, Page: page})
				if err != nil {
					return err
				}
				for _, v := range res.Campaigns {
					all = append(all, v.Campaign)
				}
				if res.NextCursor == "" {
					break
				}
				page.Cursor = res.NextCursor
			}
			if out.json {
				list := make([]campaignJSON, len(all))
				for i, camp := range all {
					list[i] = toCampaignJSON(camp)
				}
				return printJSON(e.stdout, list)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tTEMPLATE\tLANGUAGE\tTEMPLATE STATUS\tPLACEHOLDERS")
			for _, camp := range all {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\n", camp.ID, camp.Name, camp.Status, camp.Template.Name,
					camp.Template.Language, cmp.Or(camp.TemplateStatus.String(), "local"), len(camp.Template.Placeholders))
			}
			return tw.Flush()
		}, &list, &def)
	})
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

// newCampaignsSetStatusCmd is campaigns activate or campaigns pause.
func newCampaignsSetStatusCmd(e *env, to domain.CampaignStatus) *cobra.Command {
	var (
		workspace string
		out       output
	)
	cmd := &cobra.Command{
		Use:   "activate ID",
		Short: "Activate a campaign: its sends are accepted",
		Args:  oneArg("one campaign id"),
	}
	if to == domain.CampaignPaused {
		cmd.Use, cmd.Short = "pause ID", "Pause a campaign: its sends answer 409 campaign_not_active"
	}
	cmd.RunE = e.action(func(_ *cobra.Command, args []string) error {
		var h *app.ChangeCampaignStatusHandler
		return e.withApp(func() error {
			camp, err := h.Handle(e.ctx, app.ChangeCampaignStatus{Workspace: workspace, CampaignID: args[0], To: to})
			if err != nil {
				return err
			}
			if out.json {
				return printJSON(e.stdout, toCampaignJSON(camp))
			}
			fmt.Fprintf(e.stdout, "campaign %s is %s\n", camp.ID, camp.Status)
			return nil
		}, &h)
	})
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

func workspaceOrDefault(e *env, def *app.EnsureDefaultWorkspaceHandler, id string) (domain.WorkspaceID, error) {
	if id != "" {
		return domain.ParseWorkspaceID(id)
	}
	w, err := def.Handle(e.ctx)
	return w.ID, err
}

type syncedTemplateJSON struct {
	Name         string               `json:"name"`
	Language     string               `json:"language"`
	Status       string               `json:"status"`
	Category     string               `json:"category"`
	ID           string               `json:"id"`
	HeaderFormat string               `json:"headerFormat,omitempty"`
	Body         string               `json:"body,omitempty"`
	Placeholders int                  `json:"placeholders"`
	Unsupported  string               `json:"unsupported,omitempty"`
	Campaigns    []templateChangeJSON `json:"campaignsChanged,omitempty"`
}

type templateChangeJSON struct {
	ID          string `json:"id"`
	WorkspaceID string `json:"workspaceId"`
	From        string `json:"from"`
	To          string `json:"to"`
}

func newCampaignsSyncTemplatesCmd(e *env) *cobra.Command {
	var out output
	cmd := &cobra.Command{
		Use:   "sync-templates",
		Short: "Read the business accounts' templates from Meta",
		Long: "Reads every template of the WhatsApp business account (HERALD_WHATSAPP_WABA_ID), and of each\n" +
			"stored number's account with that number's token, from Meta's Cloud API,\n" +
			"records their statuses and applies them to the campaigns that use them. The server also does this at start and every HERALD_WHATSAPP_TEMPLATE_REFRESH.",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		var h *app.SyncTemplatesHandler
		return e.withApp(func() error {
			res, err := h.Handle(e.ctx)
			if err != nil {
				return err
			}
			changes := map[string][]templateChangeJSON{}
			for _, ch := range res.Changes {
				changes[ch.Template] = append(changes[ch.Template], templateChangeJSON{ID: string(ch.Campaign),
					WorkspaceID: string(ch.Workspace), From: cmp.Or(ch.From.String(), "local"), To: ch.To.String()})
			}
			list := make([]syncedTemplateJSON, len(res.Templates))
			for i, t := range res.Templates {
				list[i] = syncedTemplateJSON{Name: t.Name, Language: t.Language, Status: t.Status.String(), Category: t.Category,
					ID: t.ProviderID, Body: t.Definition.Body, Placeholders: len(t.Definition.Placeholders),
					Unsupported: t.Unsupported, Campaigns: changes[t.Name+" ("+t.Language+")"]}
				if t.Unsupported == "" {
					list[i].HeaderFormat = t.Definition.HeaderFormat.String()
				}
			}
			if out.json {
				return printJSON(e.stdout, list)
			}
			accounts := "business account " + strings.Join(res.Accounts, "")
			if len(res.Accounts) > 1 {
				accounts = "business accounts " + strings.Join(res.Accounts, ", ")
			}
			fmt.Fprintf(e.stdout, "%d templates synced from %s\n", len(list), accounts)
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tLANGUAGE\tSTATUS\tCATEGORY\tHEADER\tPLACEHOLDERS\tNOTE")
			for _, t := range list {
				note := t.Unsupported
				if note != "" {
					note = "cannot be sent by Herald: " + note
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", t.Name, t.Language, t.Status, t.Category,
					cmp.Or(t.HeaderFormat, "-"), t.Placeholders, note)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, ch := range res.Changes {
				fmt.Fprintf(e.stdout, "campaign %s: template %s went from %s to %s\n", ch.Campaign, ch.Template,
					cmp.Or(ch.From.String(), "local"), ch.To)
			}
			return nil
		}, &h)
	})
	out.register(cmd, "")
	e.appFlags(cmd, "whatsapp-api-url", "whatsapp-access-token", "whatsapp-waba-id")
	return cmd
}
