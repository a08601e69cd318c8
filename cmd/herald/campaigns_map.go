package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// slotJSON is one slot of a campaign's template, as campaigns map prints it.
type slotJSON struct {
	Slot           string  `json:"slot"`
	Kind           string  `json:"kind"`
	Describes      string  `json:"describes"`
	Label          string  `json:"label"`
	Position       *int    `json:"position"`
	Value          *string `json:"value"`
	MediaHeaderURL bool    `json:"mediaHeaderUrl"`
}

// newCampaignsMapCmd is campaigns map: show or change where each slot of a
// campaign's template takes its value from, and its label.
func newCampaignsMapCmd(e *env) *cobra.Command {
	var (
		workspace     string
		name          string
		slots, labels []string
		out           output
	)
	cmd := &cobra.Command{
		Use:   "map ID [--slot KEY=SOURCE]… [--label KEY=TEXT]…",
		Short: "Show or change where each slot of a campaign's template takes its value from",
		Long: "Lists every slot of the campaign's template — header, body placeholders, buttons, an offer's\n" +
			"expiry, carousel cards — with its label and where a send's value comes from. --slot changes a\n" +
			"source: KEY=position:N (variables[N-1]; several slots may share one), KEY=value:TEXT (the same\n" +
			"on every send) or KEY=media (the send's mediaHeaderUrl, for the template's own media header).\n" +
			"--label KEY=TEXT says what a slot means. The positions in use must run from 1 without gaps;\n" +
			"nothing changes unless every change is valid.",
		Example: "  herald campaigns map cmp_… --slot buttons.0=position:3 --label buttons.0='Opt-out payload'\n" +
			"  herald campaigns map cmp_… --slot buttons.1=value:SAVE25",
		Args: oneArg("one campaign id"),
	}
	cmd.RunE = e.action(func(_ *cobra.Command, args []string) error {
		if err := out.check(); err != nil {
			return err
		}
		var entries []domain.MappingEntry
		for _, s := range slots {
			key, src, ok := strings.Cut(s, "=")
			if !ok || key == "" {
				return usagef("--slot takes KEY=position:N, KEY=value:TEXT or KEY=media, e.g. buttons.0=position:2")
			}
			en := domain.MappingEntry{Slot: key}
			kind, arg, _ := strings.Cut(src, ":")
			switch kind {
			case "position":
				n, err := strconv.Atoi(arg)
				if err != nil || n < 1 {
					return usagef("--slot %s: a position is a number from 1", key)
				}
				en.Position = n
			case "value":
				v := arg
				en.Value = &v
			case "media":
				en.MediaHeaderURL = true
			default:
				return usagef("--slot %s: the source is position:N, value:TEXT or media", key)
			}
			entries = append(entries, en)
		}
		for _, l := range labels {
			key, text, ok := strings.Cut(l, "=")
			if !ok || key == "" {
				return usagef("--label takes KEY=TEXT, e.g. body.1='First name'")
			}
			entries = append(entries, domain.MappingEntry{Slot: key, Label: &text})
		}
		var (
			remap *app.RemapCampaignHandler
			get   *app.GetCampaignHandler
			def   *app.EnsureDefaultWorkspaceHandler
		)
		return e.withApp(func() error {
			ws, err := workspaceOrDefault(e, def, workspace)
			if err != nil {
				return err
			}
			var camp domain.Campaign
			if entries != nil || name != "" {
				var n *string
				if name != "" {
					n = &name
				}
				if camp, err = remap.Handle(e.ctx, app.RemapCampaign{Workspace: ws, CampaignID: args[0], Name: n, Mapping: entries}); err != nil {
					return err
				}
			} else {
				v, err := get.Handle(e.ctx, app.GetCampaign{Principal: domain.Principal{Workspace: ws}, CampaignID: args[0]})
				if err != nil {
					return err
				}
				camp = v.Campaign
			}
			rows := toSlotsJSON(camp.Template)
			if out.json {
				return printJSON(e.stdout, rows)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SLOT\tFILLS\tFROM\tLABEL")
			for _, r := range rows {
				from := "mediaHeaderUrl"
				switch {
				case r.Position != nil:
					from = "variables[" + strconv.Itoa(*r.Position-1) + "]"
				case r.Value != nil:
					from = strconv.Quote(*r.Value)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Slot, r.Describes, from, r.Label)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "a send gives %d variables\n", camp.Template.VariableCount())
			return err
		}, &remap, &get, &def)
	})
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "rename the campaign")
	f.StringArrayVar(&slots, "slot", nil, "`KEY=SOURCE`: position:N, value:TEXT or media; repeat per slot")
	f.StringArrayVar(&labels, "label", nil, "`KEY=TEXT`: what the slot means; repeat per slot")
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

func toSlotsJSON(t domain.Template) []slotJSON {
	slots := t.AllSlots()
	out := make([]slotJSON, len(slots))
	for i, s := range slots {
		j := slotJSON{Slot: s.Key, Kind: s.Kind.String(), Describes: s.Describe(), Label: s.Label, MediaHeaderURL: s.Source.MediaHeaderURL}
		switch {
		case s.Source.Position > 0:
			p := s.Source.Position
			j.Position = &p
		case !s.Source.MediaHeaderURL:
			v := s.Source.Value
			j.Value = &v
		}
		out[i] = j
	}
	return out
}
