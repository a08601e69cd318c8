package domain

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ButtonKind is the kind of a template button.
type ButtonKind struct{ s string }

// The button kinds Herald sends. Static URL and phone buttons take no value.
var (
	ButtonQuickReply = ButtonKind{"quick_reply"}
	ButtonURL        = ButtonKind{"url"}
	ButtonPhone      = ButtonKind{"phone_number"}
	ButtonVoiceCall  = ButtonKind{"voice_call"}
	ButtonCopyCode   = ButtonKind{"copy_code"}
	// ButtonOTP is an authentication template's code button: copy code,
	// one tap or zero tap. Meta lists it as a URL button.
	ButtonOTP = ButtonKind{"otp"}
)

// ParseButtonKind parses quick_reply, url, phone_number, voice_call,
// copy_code or otp.
func ParseButtonKind(s string) (ButtonKind, error) {
	for _, k := range []ButtonKind{ButtonQuickReply, ButtonURL, ButtonPhone, ButtonVoiceCall, ButtonCopyCode, ButtonOTP} {
		if s == k.s {
			return k, nil
		}
	}
	return ButtonKind{}, InvalidParameter("type", "a button's type is one of quick_reply, url, phone_number, voice_call, copy_code, otp")
}

func (k ButtonKind) String() string { return k.s }

// ButtonDef is one button as the template defines it.
type ButtonDef struct {
	Kind ButtonKind
	Text string
	URL  string // a URL button's URL, which may end in one placeholder
	// PhoneNumber is a phone-number button's number, with its country
	// code.
	PhoneNumber string
}

// OfferDef is a limited-time offer component.
type OfferDef struct {
	Text          string
	HasExpiration bool
}

// CardDef is one carousel card: a media header, a body and buttons.
type CardDef struct {
	HeaderFormat HeaderFormat
	Body         string
	Buttons      []ButtonDef
}

// TemplateDefinition is a template's components as Meta defines them.
type TemplateDefinition struct {
	Name, Language string
	// Authentication marks an authentication (one-time password)
	// template: its body's one placeholder and its OTP button take the
	// same code.
	Authentication bool
	// Named says placeholders are {{first_name}} (parameter_format
	// NAMED) rather than {{1}}.
	Named        bool
	HeaderFormat HeaderFormat
	HeaderText   string
	Body         string
	Footer       string
	Buttons      []ButtonDef
	Offer        *OfferDef
	Cards        []CardDef
	// Labels name the body's placeholders, in order.
	Labels []string
}

// DefineTemplate checks a definition against Meta's rules and returns the
// template with every slot and its default mapping: the body's
// placeholders take the first positions in order, then the header, the
// buttons in template order, the offer's expiry and the cards'. A media
// header comes from mediaHeaderUrl; a quick reply's payload is its
// button's text unless mapped; an OTP button shares the body's code.
func DefineTemplate(d TemplateDefinition) (Template, error) {
	if err := CheckTemplateRef(d.Name, d.Language); err != nil {
		return Template{}, err
	}
	d.Language = CanonicalLanguage(d.Language)
	if d.HeaderFormat.IsZero() {
		d.HeaderFormat = HeaderNone
	}
	for _, f := range []struct{ param, what, value string }{
		{"headerText", "the header text", d.HeaderText}, {"body", "the body", d.Body}, {"footer", "the footer", d.Footer},
	} {
		if err := CheckText(f.param, f.what, f.value); err != nil {
			return Template{}, err
		}
	}
	for _, l := range d.Labels {
		if err := CheckText("variableLabels", "a variable label", l); err != nil {
			return Template{}, err
		}
	}
	t := Template{Name: d.Name, Language: d.Language, HeaderFormat: d.HeaderFormat, HeaderText: d.HeaderText,
		Body: d.Body, Footer: d.Footer, Slots: []Slot{}, Buttons: []ButtonDef{}}
	var header []Slot
	switch {
	case d.HeaderFormat == HeaderText:
		if d.HeaderText == "" || utf8.RuneCountInString(d.HeaderText) > MaxHeaderTextLength {
			return Template{}, InvalidParameter("headerText", "a text header is 1 to 60 characters")
		}
		params, err := scanPlaceholders("headerText", "header", d.HeaderText, d.Named)
		if err != nil {
			return Template{}, err
		}
		if len(params) > 1 {
			return Template{}, InvalidParameter("headerText", "a text header has at most one placeholder")
		}
		fixed := utf8.RuneCountInString(d.HeaderText) - utf8.RuneCountInString("{{"+strings.Join(params, "")+"}}")
		for _, p := range params {
			header = append(header, Slot{Key: "header", Kind: SlotHeaderText, Param: p, Named: d.Named,
				Limit: MaxHeaderTextLength - fixed, Context: d.HeaderText})
		}
	case d.HeaderText != "":
		return Template{}, InvalidParameter("headerText", "header text is only for a text header")
	case d.HeaderFormat.IsMedia():
		header = append(header, Slot{Key: "header", Kind: SlotHeaderMedia, Media: d.HeaderFormat, Source: SlotSource{MediaHeaderURL: true}})
	case d.HeaderFormat == HeaderLocation:
		header = append(header, Slot{Key: "header", Kind: SlotHeaderLocation})
	}
	maxBody := MaxBodyLength
	if d.Offer != nil {
		maxBody = MaxOfferBodyLength
	}
	if d.Body == "" || utf8.RuneCountInString(d.Body) > maxBody {
		return Template{}, InvalidParameter("body", "a template body is 1 to "+strconv.Itoa(maxBody)+" characters")
	}
	if utf8.RuneCountInString(d.Footer) > MaxFooterLength {
		return Template{}, InvalidParameter("footer", "a footer is at most 60 characters")
	}
	params, err := scanPlaceholders("body", "body", d.Body, d.Named)
	if err != nil {
		return Template{}, err
	}
	if len(d.Labels) > len(params) {
		return Template{}, InvalidParameter("variableLabels",
			"there are "+strconv.Itoa(len(d.Labels))+" labels but the body has "+strconv.Itoa(len(params))+" placeholders")
	}
	for i, p := range params {
		s := Slot{Key: "body." + p, Kind: SlotBody, Card: -1, Param: p, Named: d.Named}
		if i < len(d.Labels) {
			s.Label = d.Labels[i]
		}
		t.Slots = append(t.Slots, s)
	}
	for i := range header {
		header[i].Card = -1
	}
	t.Slots = append(t.Slots, header...)
	buttons, err := buttonSlots("buttons", -1, d.Buttons, d.Authentication)
	if err != nil {
		return Template{}, err
	}
	if d.Authentication {
		if len(params) != 1 {
			return Template{}, InvalidParameter("body", "an authentication template's body has exactly one placeholder, the code")
		}
		otp := 0
		for _, b := range d.Buttons {
			if b.Kind == ButtonOTP {
				otp++
			}
		}
		if otp != 1 {
			return Template{}, InvalidParameter("buttons", "an authentication template has exactly one OTP button")
		}
	}
	t.Slots = append(t.Slots, buttons...)
	for _, b := range d.Buttons {
		if b.Kind != ButtonURL {
			b.URL = ""
		}
		if b.Kind != ButtonPhone {
			b.PhoneNumber = ""
		}
		t.Buttons = append(t.Buttons, b)
	}
	if d.Offer != nil {
		if n := utf8.RuneCountInString(d.Offer.Text); n == 0 || n > MaxOfferTextLength {
			return Template{}, InvalidParameter("offer", "a limited-time offer's text is 1 to 16 characters")
		}
		if d.Offer.HasExpiration {
			t.Slots = append(t.Slots, Slot{Key: "offer", Kind: SlotOfferExpiry, Card: -1, Context: d.Offer.Text})
		}
	}
	if d.Cards != nil {
		if len(d.Cards) < MinCards || len(d.Cards) > MaxCards {
			return Template{}, InvalidParameter("cards", "a carousel has 2 to 10 cards; this one has "+strconv.Itoa(len(d.Cards)))
		}
		for i, c := range d.Cards {
			slots, err := cardSlots(i, c, d.Named)
			if err != nil {
				return Template{}, err
			}
			t.Slots = append(t.Slots, slots...)
		}
	}
	assignDefaultPositions(t.Slots, d.Authentication)
	t.syncPlaceholders()
	return t, nil
}

// cardSlots are one carousel card's slots.
func cardSlots(i int, c CardDef, named bool) ([]Slot, error) {
	param := "cards[" + strconv.Itoa(i) + "]"
	prefix := "cards." + strconv.Itoa(i) + "."
	if c.HeaderFormat != HeaderImage && c.HeaderFormat != HeaderVideo {
		return nil, InvalidParameter(param+".headerFormat", "a carousel card has an image or video header")
	}
	out := []Slot{{Key: prefix + "header", Kind: SlotHeaderMedia, Media: c.HeaderFormat, Card: i}}
	if err := CheckText(param+".body", "a card's body", c.Body); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(c.Body) > 160 {
		return nil, InvalidParameter(param+".body", "a card's body is at most 160 characters")
	}
	params, err := scanPlaceholders(param+".body", "card body", c.Body, named)
	if err != nil {
		return nil, err
	}
	for _, p := range params {
		out = append(out, Slot{Key: prefix + "body." + p, Kind: SlotBody, Card: i, Param: p, Named: named})
	}
	if len(c.Buttons) == 0 || len(c.Buttons) > maxCardButtons {
		return nil, InvalidParameter(param+".buttons", "a carousel card has 1 or 2 buttons")
	}
	for _, b := range c.Buttons {
		if b.Kind != ButtonQuickReply && b.Kind != ButtonURL && b.Kind != ButtonPhone {
			return nil, InvalidParameter(param+".buttons", "a carousel card's buttons are quick replies, URLs or phone numbers")
		}
	}
	buttons, err := buttonSlots(param+".buttons", i, c.Buttons, false)
	if err != nil {
		return nil, err
	}
	return append(out, buttons...), nil
}

// buttonSlots checks buttons against Meta's rules and returns their slots.
func buttonSlots(param string, card int, buttons []ButtonDef, auth bool) ([]Slot, error) {
	if len(buttons) > 10 {
		return nil, InvalidParameter(param, "a template has at most 10 buttons")
	}
	count := map[ButtonKind]int{}
	limits := map[ButtonKind]int{ButtonQuickReply: 10, ButtonURL: 2, ButtonPhone: 1, ButtonVoiceCall: 1, ButtonCopyCode: 1, ButtonOTP: 1}
	names := map[ButtonKind]string{ButtonQuickReply: "quick-reply", ButtonURL: "URL", ButtonPhone: "phone-number", ButtonVoiceCall: "voice-call",
		ButtonCopyCode: "copy-code", ButtonOTP: "OTP"}
	prefix := "buttons."
	if card >= 0 {
		prefix = "cards." + strconv.Itoa(card) + ".buttons."
	}
	var out []Slot
	lastQR := -1
	for i, b := range buttons {
		p := param + "[" + strconv.Itoa(i) + "]"
		limit, known := limits[b.Kind]
		if !known {
			return nil, InvalidParameter(p, "unknown button kind")
		}
		if count[b.Kind]++; count[b.Kind] > limit {
			return nil, InvalidParameter(param, "a template has at most "+strconv.Itoa(limit)+" "+names[b.Kind]+" button"+plural(limit))
		}
		if b.Kind == ButtonQuickReply {
			if lastQR >= 0 && lastQR != i-1 {
				return nil, InvalidParameter(param, "quick-reply buttons must be next to each other")
			}
			lastQR = i
		}
		if b.Kind == ButtonOTP && !auth {
			return nil, InvalidParameter(p, "only an authentication template has an OTP button")
		}
		if err := CheckText(p+".text", "a button's text", b.Text); err != nil {
			return nil, err
		}
		if utf8.RuneCountInString(b.Text) > MaxButtonTextLength {
			return nil, InvalidParameter(p+".text", "a button's text is at most 25 characters")
		}
		s := Slot{Key: prefix + strconv.Itoa(i), Card: card, Button: i, Context: b.Text}
		switch b.Kind {
		case ButtonQuickReply:
			s.Kind, s.Source = SlotQuickReply, SlotSource{Value: b.Text}
			if b.Text == "" {
				s.Source = SlotSource{Value: "button-" + strconv.Itoa(i)}
			}
		case ButtonCopyCode:
			s.Kind, s.Limit = SlotCouponCode, MaxCodeLength
		case ButtonOTP:
			s.Kind, s.Limit = SlotOTP, MaxCodeLength
		case ButtonURL:
			if err := CheckText(p+".url", "a button's URL", b.URL); err != nil {
				return nil, err
			}
			if utf8.RuneCountInString(b.URL) > MaxURLLength {
				return nil, InvalidParameter(p+".url", "a button's URL is at most 2000 characters")
			}
			i := strings.Index(b.URL, "{{")
			if i < 0 {
				continue // a static URL takes no value
			}
			if !strings.HasSuffix(b.URL, "}}") || strings.Count(b.URL, "{{") > 1 {
				return nil, InvalidParameter(p+".url", "a button's URL has at most one placeholder, at its end")
			}
			s.Kind, s.Limit = SlotURLSuffix, MaxURLLength-utf8.RuneCountInString(b.URL[:i])
		case ButtonPhone:
			if err := CheckText(p+".phoneNumber", "a button's phone number", b.PhoneNumber); err != nil {
				return nil, err
			}
			continue
		case ButtonVoiceCall:
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// assignDefaultPositions gives the slots that take a variable by default
// their positions: body first, then header, buttons, offer and cards, each
// in template order. The OTP button shares the body's code.
func assignDefaultPositions(slots []Slot, auth bool) {
	n := 0
	next := func(s *Slot) {
		n++
		s.Source = SlotSource{Position: n}
	}
	for i := range slots {
		if slots[i].Kind == SlotBody && slots[i].Card < 0 {
			next(&slots[i])
		}
	}
	for i := range slots {
		s := &slots[i]
		switch {
		case s.Kind == SlotBody && s.Card < 0:
		case s.Kind == SlotOTP && auth:
			s.Source = SlotSource{Position: 1}
		case s.Source != SlotSource{}:
			// a media header from mediaHeaderUrl, a quick reply's payload
		default:
			next(s)
		}
	}
}

// scanPlaceholders finds the placeholders of text: {{1}}…{{n}} in order
// with none missing, or, named, {{first_name}} in order of first use.
func scanPlaceholders(param, what, text string, named bool) ([]string, error) {
	var found []string
	seen := map[string]bool{}
	maxN := 0
	rest := text
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			return nil, InvalidParameter(param, "a placeholder opened with {{ is never closed")
		}
		inner := rest[i+2 : i+j]
		rest = rest[i+j+2:]
		if named {
			if inner == "" || len(inner) > 100 || inner[0] < 'a' || inner[0] > 'z' || strings.Trim(inner, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
				return nil, InvalidParameter(param, "named placeholders are a lowercase letter then lowercase letters, digits and underscores, {{first_name}}; found {{"+inner+"}}")
			}
			if !seen[inner] {
				seen[inner] = true
				found = append(found, inner)
			}
			continue
		}
		n, err := strconv.Atoi(inner)
		if err != nil || n < 1 || strconv.Itoa(n) != inner {
			return nil, InvalidParameter(param, "placeholders are positional, {{1}}, {{2}}, …; found {{"+inner+"}}")
		}
		if n > maxPlaceholdersPerBody {
			return nil, InvalidParameter(param, "a "+what+" has at most 100 placeholders")
		}
		seen[inner] = true
		maxN = max(maxN, n)
	}
	if named {
		if len(found) > maxPlaceholdersPerBody {
			return nil, InvalidParameter(param, "a "+what+" has at most 100 placeholders")
		}
		return found, nil
	}
	out := make([]string, 0, maxN)
	for k := 1; k <= maxN; k++ {
		if !seen[strconv.Itoa(k)] {
			return nil, InvalidParameter(param, "placeholder {{"+strconv.Itoa(k)+"}} is missing; placeholders must run from {{1}} without gaps")
		}
		out = append(out, strconv.Itoa(k))
	}
	return out, nil
}

// AllButtons returns the template's own buttons in order: the kept ones,
// or for a template stored before buttons were kept, those its slots
// know of (the buttons that take a value, without a URL's address), in
// order.
func (t Template) AllButtons() []ButtonDef {
	if t.Buttons != nil {
		return t.Buttons
	}
	var out []ButtonDef
	for _, s := range t.slots() {
		if s.Card >= 0 {
			continue
		}
		var k ButtonKind
		switch s.Kind {
		case SlotQuickReply:
			k = ButtonQuickReply
		case SlotURLSuffix:
			k = ButtonURL
		case SlotCouponCode:
			k = ButtonCopyCode
		case SlotOTP:
			k = ButtonOTP
		default:
			continue
		}
		out = append(out, ButtonDef{Kind: k, Text: s.Context})
	}
	return out
}
