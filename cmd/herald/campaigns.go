package main

import (
	"cmp"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

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

// labels collects repeated --variable-label flags in order.
type labels []string

func (l *labels) String() string     { return strings.Join(*l, ",") }
func (l *labels) Set(s string) error { *l = append(*l, s); return nil }

func campaignsCreate(e env, args []string) error {
	var (
		cmd      app.CreateCampaign
		header   string
		category string
		labs     labels
	)
	c, err := parseCommand(e, "campaigns create", args, "", func(fs *flag.FlagSet) {
		fs.StringVar(&cmd.Name, "name", "", "campaign name (required)")
		fs.StringVar(&cmd.TemplateName, "template-name", "", "WhatsApp template name (required)")
		fs.StringVar(&cmd.Language, "language", "", "template language code, e.g. en_US (required)")
		fs.StringVar(&cmd.Body, "body", "", `template body with positional placeholders, e.g. "Hi {{1}}"; without it, the synced template's`)
		fs.StringVar(&header, "header-format", "", "none, text, image, video or document (with --body; default none)")
		fs.StringVar(&cmd.HeaderText, "header-text", "", "header text, for --header-format text")
		fs.StringVar(&cmd.Footer, "footer", "", "footer text")
		fs.StringVar(&category, "category", "", "marketing, utility or authentication (with --body; a synced template has Meta's; none counts as marketing)")
		fs.Var(&labs, "variable-label", "what {{n}} means; repeat in placeholder order")
		fs.BoolVar(&cmd.Activate, "activate", false, "activate the campaign at once")
		workspaceFlag(fs, &cmd.Workspace)
	})
	if err != nil {
		return err
	}
	for flagName, v := range map[string]string{"--name": cmd.Name, "--template-name": cmd.TemplateName, "--language": cmd.Language} {
		if v == "" {
			return fmt.Errorf("%w: %s is required", errUsage, flagName)
		}
	}
	if cmd.Body == "" && (header != "" || cmd.HeaderText != "" || cmd.Footer != "") {
		return fmt.Errorf("%w: --header-format, --header-text and --footer define a template with --body; a synced template brings its own", errUsage)
	}
	if header != "" {
		hf, err := domain.ParseHeaderFormat(header)
		if err != nil {
			return fmt.Errorf("%w: --header-format must be none, text, image, video or document", errUsage)
		}
		cmd.HeaderFormat = hf
	}
	if category != "" {
		cat, err := domain.ParseTemplateCategory(category)
		if err != nil || cat != domain.CategoryMarketing && cat != domain.CategoryUtility && cat != domain.CategoryAuthentication {
			return fmt.Errorf("%w: --category must be marketing, utility or authentication", errUsage)
		}
		cmd.Category = cat
	}
	cmd.VariableLabels = labs
	var h *app.CreateCampaignHandler
	return c.withApp(e, func() error {
		camp, err := h.Handle(e.ctx, cmd)
		if err != nil {
			return err
		}
		if *c.json {
			return c.printJSON(e.stdout, toCampaignJSON(camp))
		}
		fmt.Fprintf(e.stdout, "campaign %s created (%s): %s\n", camp.Name, camp.Status, camp.ID)
		if !camp.TemplateStatus.IsZero() && camp.TemplateStatus != domain.TemplateApproved {
			fmt.Fprintf(e.stdout, "its template is %s at Meta: the campaign can be activated once Meta approves it\n", camp.TemplateStatus)
		} else if camp.Status != domain.CampaignActive {
			fmt.Fprintf(e.stdout, "activate it with: herald campaigns activate %s\n", camp.ID)
		}
		return nil
	}, &h)
}

func campaignsList(e env, args []string) error {
	var workspace string
	c, err := parseCommand(e, "campaigns list", args, "", func(fs *flag.FlagSet) {
		workspaceFlag(fs, &workspace)
	})
	if err != nil {
		return err
	}
	var (
		list *app.ListCampaignsHandler
		def  *app.EnsureDefaultWorkspaceHandler
	)
	return c.withApp(e, func() error {
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
		if *c.json {
			out := make([]campaignJSON, len(all))
			for i, camp := range all {
				out[i] = toCampaignJSON(camp)
			}
			return c.printJSON(e.stdout, out)
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tTEMPLATE\tLANGUAGE\tTEMPLATE STATUS\tPLACEHOLDERS")
		for _, camp := range all {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\n", camp.ID, camp.Name, camp.Status, camp.Template.Name,
				camp.Template.Language, cmp.Or(camp.TemplateStatus.String(), "local"), len(camp.Template.Placeholders))
		}
		return tw.Flush()
	}, &list, &def)
}

func campaignsSetStatus(e env, args []string, to domain.CampaignStatus) error {
	verb := "activate"
	if to == domain.CampaignPaused {
		verb = "pause"
	}
	var workspace string
	c, err := parseCommand(e, "campaigns "+verb, args, "one campaign id", func(fs *flag.FlagSet) {
		workspaceFlag(fs, &workspace)
	})
	if err != nil {
		return err
	}
	var h *app.ChangeCampaignStatusHandler
	return c.withApp(e, func() error {
		camp, err := h.Handle(e.ctx, app.ChangeCampaignStatus{Workspace: workspace, CampaignID: c.args[0], To: to})
		if err != nil {
			return err
		}
		if *c.json {
			return c.printJSON(e.stdout, toCampaignJSON(camp))
		}
		fmt.Fprintf(e.stdout, "campaign %s is %s\n", camp.ID, camp.Status)
		return nil
	}, &h)
}

func workspaceOrDefault(e env, def *app.EnsureDefaultWorkspaceHandler, id string) (domain.WorkspaceID, error) {
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

func campaignsSyncTemplates(e env, args []string) error {
	c, err := parseCommand(e, "campaigns sync-templates", args, "", func(*flag.FlagSet) {})
	if err != nil {
		return err
	}
	var h *app.SyncTemplatesHandler
	return c.withApp(e, func() error {
		res, err := h.Handle(e.ctx)
		if err != nil {
			return err
		}
		changes := map[string][]templateChangeJSON{}
		for _, ch := range res.Changes {
			changes[ch.Template] = append(changes[ch.Template], templateChangeJSON{ID: string(ch.Campaign),
				WorkspaceID: string(ch.Workspace), From: cmp.Or(ch.From.String(), "local"), To: ch.To.String()})
		}
		out := make([]syncedTemplateJSON, len(res.Templates))
		for i, t := range res.Templates {
			out[i] = syncedTemplateJSON{Name: t.Name, Language: t.Language, Status: t.Status.String(), Category: t.Category,
				ID: t.ProviderID, Body: t.Definition.Body, Placeholders: len(t.Definition.Placeholders),
				Unsupported: t.Unsupported, Campaigns: changes[t.Name+" ("+t.Language+")"]}
			if t.Unsupported == "" {
				out[i].HeaderFormat = t.Definition.HeaderFormat.String()
			}
		}
		if *c.json {
			return c.printJSON(e.stdout, out)
		}
		fmt.Fprintf(e.stdout, "%d templates synced from business account %s\n", len(out), res.Account)
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tLANGUAGE\tSTATUS\tCATEGORY\tHEADER\tPLACEHOLDERS\tNOTE")
		for _, t := range out {
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
}
