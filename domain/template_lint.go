package domain

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TemplateDraft is a new template as Meta's POST message_templates takes
// it: the name, language, category, parameter format and components, with
// the examples Meta's review needs.
type TemplateDraft struct {
	Name, Language string
	Category       string // MARKETING, UTILITY or AUTHENTICATION
	// ParameterFormat is POSITIONAL (the default, "") or NAMED.
	ParameterFormat string
	Components      []DraftComponent
}

// DraftComponent is one component of a draft: HEADER, BODY, FOOTER,
// BUTTONS, LIMITED_TIME_OFFER or CAROUSEL.
type DraftComponent struct {
	Type    string
	Format  string // a header's: TEXT, IMAGE, VIDEO, DOCUMENT or LOCATION
	Text    string
	Example DraftExample
	Buttons []DraftButton
	Cards   []DraftCard
	// An authentication template's body and footer: Meta writes their
	// text, these add its optional sentences.
	AddSecurityRecommendation bool
	CodeExpirationMinutes     int
	// A limited-time offer's text and whether it expires.
	OfferText     string
	HasExpiration bool
}

// DraftExample holds the sample values Meta's review reads: one per
// placeholder, and a media header's sample handle.
type DraftExample struct {
	HeaderText   []string
	HeaderHandle []string
	BodyText     []string
	// NamedParams are a NAMED template's samples, by placeholder name.
	NamedParams []NamedExample
}

// NamedExample is the sample value of one named placeholder.
type NamedExample struct{ Name, Example string }

// DraftButton is one button of a draft.
type DraftButton struct {
	Type        string // QUICK_REPLY, URL, PHONE_NUMBER, VOICE_CALL, COPY_CODE, OTP
	Text        string
	URL         string
	PhoneNumber string
	// Example is a dynamic URL's full sample URL, or a copy-code button's
	// sample code.
	Example string
	// OTPType is an OTP button's COPY_CODE, ONE_TAP or ZERO_TAP.
	OTPType              string
	SupportedApps        []SupportedApp
	ZeroTapTermsAccepted bool
}

// SupportedApp is an Android app a one-tap or zero-tap button hands the
// code to.
type SupportedApp struct{ PackageName, SignatureHash string }

// DraftCard is one carousel card: its header, body and buttons.
type DraftCard struct{ Components []DraftComponent }

// LintFinding is one thing Meta's review would refuse in a draft: where
// (components[1].text), a stable code, and what to change.
type LintFinding struct {
	Path, Code, Message string
}

// The codes of lint findings.
const (
	LintRequired      = "required"
	LintInvalid       = "invalid_value"
	LintTooLong       = "too_long"
	LintPlaceholder   = "placeholder_sequence"
	LintLeading       = "placeholder_leading"
	LintTrailing      = "placeholder_trailing"
	LintAdjacent      = "placeholders_adjacent"
	LintExample       = "example_missing"
	LintButtons       = "button_rule"
	LintCategory      = "category_rule"
	LintDefinition    = "definition_rule"
	maxPhoneLength    = 20
	maxOTPExpiry      = 90
	maxSupportedApps  = 5
	signatureHashSize = 11
)

// AuthenticationBody is the body text Meta writes for an authentication
// template, its one placeholder the code.
const AuthenticationBody = "{{1}} is your verification code."

// LintTemplate checks a draft the way Meta's review does and returns every
// finding, none when Meta should accept it. It also returns the template
// as a campaign would use it, with its slots, when there is no finding.
func LintTemplate(d TemplateDraft) (Template, []LintFinding) {
	l := &linter{named: strings.EqualFold(d.ParameterFormat, "NAMED")}
	if d.Name == "" || len(d.Name) > MaxTemplateNameLength || strings.Trim(d.Name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		l.add("name", LintInvalid, "a template name is 1 to 512 lowercase letters, digits and underscores")
	}
	if _, err := ParseLanguage(d.Language); err != nil {
		l.add("language", LintInvalid, "the language is a code such as en_US or pt_BR")
	}
	auth := false
	switch strings.ToUpper(d.Category) {
	case "MARKETING", "UTILITY":
	case "AUTHENTICATION":
		auth = true
	default:
		l.add("category", LintInvalid, "the category is MARKETING, UTILITY or AUTHENTICATION")
	}
	switch strings.ToUpper(d.ParameterFormat) {
	case "", "POSITIONAL", "NAMED":
	default:
		l.add("parameterFormat", LintInvalid, "the parameter format is POSITIONAL or NAMED")
	}
	def := TemplateDefinition{Name: d.Name, Language: d.Language, Authentication: auth, Named: l.named}
	seen := map[string]int{}
	for i, c := range d.Components {
		p := "components[" + strconv.Itoa(i) + "]"
		typ := strings.ToUpper(c.Type)
		if seen[typ]++; seen[typ] > 1 {
			l.add(p+".type", LintDefinition, "a template has at most one "+typ+" component")
			continue
		}
		switch typ {
		case "HEADER":
			def.HeaderFormat, def.HeaderText = l.header(p, c, auth)
		case "BODY":
			if auth {
				if c.Text != "" {
					l.add(p+".text", LintCategory, "Meta writes an authentication template's body; leave its text out")
				}
				def.Body = AuthenticationBody
				continue
			}
			def.Body = c.Text
			l.body(p, c, hasType(d.Components, "LIMITED_TIME_OFFER"))
		case "FOOTER":
			if auth {
				if c.Text != "" {
					l.add(p+".text", LintCategory, "Meta writes an authentication template's footer; leave its text out")
				}
				if c.CodeExpirationMinutes != 0 && (c.CodeExpirationMinutes < 1 || c.CodeExpirationMinutes > maxOTPExpiry) {
					l.add(p+".codeExpirationMinutes", LintInvalid, "a code expires in 1 to 90 minutes")
				}
				continue
			}
			def.Footer = c.Text
			l.text(p+".text", "a footer", c.Text, MaxFooterLength, true)
			if strings.Contains(c.Text, "{{") {
				l.add(p+".text", LintInvalid, "a footer has no placeholders")
			}
		case "BUTTONS":
			def.Buttons = l.buttons(p, c.Buttons, auth, false)
		case "LIMITED_TIME_OFFER":
			if auth || !strings.EqualFold(d.Category, "MARKETING") {
				l.add(p+".type", LintCategory, "only a MARKETING template has a limited-time offer")
			}
			if n := utf8.RuneCountInString(c.OfferText); n == 0 || n > MaxOfferTextLength {
				l.add(p+".offerText", LintTooLong, "a limited-time offer's text is 1 to 16 characters")
			}
			def.Offer = &OfferDef{Text: c.OfferText, HasExpiration: c.HasExpiration}
		case "CAROUSEL":
			if !strings.EqualFold(d.Category, "MARKETING") {
				l.add(p+".type", LintCategory, "only a MARKETING template has a carousel")
			}
			def.Cards = l.cards(p, c.Cards)
		default:
			l.add(p+".type", LintInvalid, "a component's type is HEADER, BODY, FOOTER, BUTTONS, LIMITED_TIME_OFFER or CAROUSEL")
		}
	}
	if seen["BODY"] == 0 {
		l.add("components", LintRequired, "a template has a BODY component")
	}
	if auth {
		if seen["BODY"] == 0 {
			def.Body = AuthenticationBody
		}
		otp := 0
		for _, b := range def.Buttons {
			if b.Kind == ButtonOTP {
				otp++
			}
		}
		if otp != 1 || len(def.Buttons) != 1 {
			l.add("components", LintCategory, "an authentication template has one BUTTONS component with exactly one OTP button")
		}
		if seen["LIMITED_TIME_OFFER"]+seen["CAROUSEL"] > 0 {
			l.add("components", LintCategory, "an authentication template has no offer or carousel")
		}
	}
	if len(l.out) > 0 {
		return Template{}, l.out
	}
	t, err := DefineTemplate(def)
	if err != nil {
		// A definition rule the checks above do not cover (the template
		// would not be sendable as defined).
		path, msg := "components", err.Error()
		if de, ok := err.(*Error); ok {
			msg = de.Detail
		}
		return Template{}, []LintFinding{{Path: path, Code: LintDefinition, Message: msg}}
	}
	return t, nil
}

func hasType(cs []DraftComponent, typ string) bool {
	for _, c := range cs {
		if strings.EqualFold(c.Type, typ) {
			return true
		}
	}
	return false
}

// linter collects findings.
type linter struct {
	named bool
	out   []LintFinding
}

func (l *linter) add(path, code, msg string) {
	l.out = append(l.out, LintFinding{Path: path, Code: code, Message: msg})
}

// text checks one text field: present when required, within max
// characters, and acceptable to Meta (CheckText's rules).
func (l *linter) text(path, what, s string, maxLen int, optional bool) {
	switch {
	case s == "" && !optional:
		l.add(path, LintRequired, what+" is required")
	case utf8.RuneCountInString(s) > maxLen:
		l.add(path, LintTooLong, what+" is at most "+strconv.Itoa(maxLen)+" characters; this one has "+strconv.Itoa(utf8.RuneCountInString(s)))
	default:
		if why := textProblem(s); s != "" && why != "" {
			l.add(path, LintInvalid, what+" "+why)
		}
	}
}

// header checks a header component and returns its format and text.
func (l *linter) header(p string, c DraftComponent, auth bool) (HeaderFormat, string) {
	f, err := ParseHeaderFormat(strings.ToLower(c.Format))
	if err != nil || f == HeaderNone {
		l.add(p+".format", LintInvalid, "a header's format is TEXT, IMAGE, VIDEO, DOCUMENT or LOCATION")
		return HeaderNone, ""
	}
	if auth {
		l.add(p, LintCategory, "an authentication template has no header")
		return HeaderNone, ""
	}
	switch {
	case f == HeaderText:
		l.text(p+".text", "a text header", c.Text, MaxHeaderTextLength, false)
		if strings.ContainsAny(c.Text, "\n*") || hasEmoji(c.Text) {
			l.add(p+".text", LintInvalid, "a text header has no newlines, asterisks or emoji")
		}
		params := l.placeholders(p+".text", c.Text)
		if len(params) > 1 {
			l.add(p+".text", LintPlaceholder, "a text header has at most one placeholder")
		}
		l.examples(p, params, c.Example.HeaderText, c.Example.NamedParams, "headerText")
		return f, c.Text
	case c.Text != "":
		l.add(p+".text", LintInvalid, "only a TEXT header has text")
	case f.IsMedia() && (len(c.Example.HeaderHandle) == 0 || c.Example.HeaderHandle[0] == ""):
		l.add(p+".example.headerHandle", LintExample, "a media header needs a sample: the handle of an uploaded file, or its URL")
	}
	return f, ""
}

// body checks the body's text, its placeholders and their examples.
func (l *linter) body(p string, c DraftComponent, offer bool) {
	maxLen := MaxBodyLength
	if offer {
		maxLen = MaxOfferBodyLength
	}
	l.text(p+".text", "the body", c.Text, maxLen, false)
	params := l.placeholders(p+".text", c.Text)
	if len(params) == 0 {
		return
	}
	trimmed := strings.TrimSpace(c.Text)
	if strings.HasPrefix(trimmed, "{{") {
		l.add(p+".text", LintLeading, "the body cannot start with a placeholder; put words before it")
	}
	if strings.HasSuffix(trimmed, "}}") {
		l.add(p+".text", LintTrailing, "the body cannot end with a placeholder; put words after it")
	}
	if adj := adjacentPlaceholders(c.Text); adj != "" {
		l.add(p+".text", LintAdjacent, "placeholders "+adj+" are next to each other; put words between them")
	}
	l.examples(p, params, c.Example.BodyText, c.Example.NamedParams, "bodyText")
	if words := len(strings.Fields(renderText(c.Text, nil))); words <= len(params) {
		l.add(p+".text", LintPlaceholder, "the body has "+strconv.Itoa(len(params))+" placeholders for "+strconv.Itoa(words)+
			" fixed words; Meta asks for more words than placeholders")
	}
}

// placeholders returns the placeholders of text in order, adding a finding
// when they are malformed or not sequential.
func (l *linter) placeholders(path, text string) []string {
	params, err := scanPlaceholders(path, "text", text, l.named)
	if err != nil {
		msg := err.Error()
		if de, ok := err.(*Error); ok {
			msg = de.Detail
		}
		l.add(path, LintPlaceholder, msg)
		return nil
	}
	return params
}

// examples checks there is one sample per placeholder.
func (l *linter) examples(p string, params, positional []string, named []NamedExample, field string) {
	if len(params) == 0 {
		return
	}
	if l.named {
		have := map[string]bool{}
		for _, e := range named {
			if e.Example != "" {
				have[e.Name] = true
			}
		}
		for _, name := range params {
			if !have[name] {
				l.add(p+".example.namedParams", LintExample, "placeholder {{"+name+"}} needs an example value")
			}
		}
		return
	}
	for i := range params {
		if i >= len(positional) || strings.TrimSpace(positional[i]) == "" {
			l.add(p+".example."+field, LintExample, "placeholder {{"+params[i]+"}} needs an example value")
		}
	}
}

// buttons checks a BUTTONS component's buttons and returns their
// definitions.
func (l *linter) buttons(p string, bs []DraftButton, auth, card bool) []ButtonDef {
	var out []ButtonDef
	if len(bs) == 0 {
		l.add(p+".buttons", LintRequired, "a BUTTONS component has at least one button")
	}
	if len(bs) > 10 {
		l.add(p+".buttons", LintButtons, "a template has at most 10 buttons")
	}
	limits := map[string]int{"QUICK_REPLY": 10, "URL": 2, "PHONE_NUMBER": 1, "VOICE_CALL": 1, "COPY_CODE": 1, "OTP": 1}
	count := map[string]int{}
	lastQR := -1
	for i, b := range bs {
		bp := p + ".buttons[" + strconv.Itoa(i) + "]"
		typ := strings.ToUpper(b.Type)
		limit, ok := limits[typ]
		if !ok {
			l.add(bp+".type", LintInvalid, "a button's type is QUICK_REPLY, URL, PHONE_NUMBER, VOICE_CALL, COPY_CODE or OTP")
			continue
		}
		if count[typ]++; count[typ] == limit+1 {
			l.add(bp+".type", LintButtons, "a template has at most "+strconv.Itoa(limit)+" "+typ+" button"+plural(limit))
		}
		if typ == "QUICK_REPLY" {
			if lastQR >= 0 && lastQR != i-1 {
				l.add(bp+".type", LintButtons, "quick-reply buttons must be next to each other")
			}
			lastQR = i
		}
		if card && typ != "QUICK_REPLY" && typ != "URL" && typ != "PHONE_NUMBER" {
			l.add(bp+".type", LintButtons, "a carousel card's buttons are quick replies, URLs or phone numbers")
		}
		if auth != (typ == "OTP") {
			if auth {
				l.add(bp+".type", LintCategory, "an authentication template's only button is its OTP button")
			} else {
				l.add(bp+".type", LintCategory, "only an AUTHENTICATION template has an OTP button")
			}
		}
		def := ButtonDef{Text: b.Text, URL: b.URL}
		switch typ {
		case "OTP":
			def.Kind, def.Text = ButtonOTP, "Copy code"
			l.otp(bp, b)
			out = append(out, def)
			continue
		case "QUICK_REPLY":
			def.Kind = ButtonQuickReply
		case "URL":
			def.Kind = ButtonURL
			l.url(bp, b)
		case "PHONE_NUMBER":
			def.Kind, def.PhoneNumber = ButtonPhone, b.PhoneNumber
			if n := len(b.PhoneNumber); n == 0 || n > maxPhoneLength || strings.Trim(strings.TrimPrefix(b.PhoneNumber, "+"), "0123456789") != "" {
				l.add(bp+".phoneNumber", LintInvalid, "a phone button's number is up to 20 digits, with its country code")
			}
		case "VOICE_CALL":
			def.Kind = ButtonVoiceCall
		case "COPY_CODE":
			def.Kind = ButtonCopyCode
			if def.Text == "" {
				def.Text = "Copy offer code"
			}
			if n := utf8.RuneCountInString(b.Example); n == 0 || n > MaxCodeLength || strings.ContainsAny(b.Example, " \t\n") {
				l.add(bp+".example", LintExample, "a copy-code button needs a sample code of 1 to 15 characters without spaces")
			}
		}
		if typ != "COPY_CODE" {
			l.text(bp+".text", "a button's text", b.Text, MaxButtonTextLength, false)
			if strings.Contains(b.Text, "{{") || strings.Contains(b.Text, "\n") {
				l.add(bp+".text", LintInvalid, "a button's text has no placeholders or newlines")
			}
		}
		out = append(out, def)
	}
	return out
}

// url checks a URL button: a URL of at most 2,000 characters with at most
// one placeholder, at its end, and then a full sample URL.
func (l *linter) url(bp string, b DraftButton) {
	u := b.URL
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		l.add(bp+".url", LintInvalid, "a URL button's URL starts with https:// or http://")
	}
	if utf8.RuneCountInString(u) > MaxURLLength {
		l.add(bp+".url", LintTooLong, "a button's URL is at most 2000 characters")
	}
	i := strings.Index(u, "{{")
	if i < 0 {
		return
	}
	if strings.Count(u, "{{") > 1 || !strings.HasSuffix(u, "}}") || u[i:] != "{{1}}" {
		l.add(bp+".url", LintPlaceholder, "a button's URL has at most one placeholder, {{1}}, at its end")
	}
	if b.Example == "" || !strings.HasPrefix(b.Example, u[:i]) || len(b.Example) == i {
		l.add(bp+".example", LintExample, "a URL with a placeholder needs a full sample URL that starts with its fixed part")
	}
}

// otp checks an authentication template's code button.
func (l *linter) otp(bp string, b DraftButton) {
	if b.Text != "" {
		l.add(bp+".text", LintCategory, "Meta writes an OTP button's text; leave it out")
	}
	switch strings.ToUpper(b.OTPType) {
	case "COPY_CODE":
		return
	case "ONE_TAP", "ZERO_TAP":
	default:
		l.add(bp+".otpType", LintInvalid, "an OTP button's otpType is COPY_CODE, ONE_TAP or ZERO_TAP")
		return
	}
	if len(b.SupportedApps) == 0 || len(b.SupportedApps) > maxSupportedApps {
		l.add(bp+".supportedApps", LintRequired, "a one-tap or zero-tap button names 1 to 5 Android apps")
	}
	for j, a := range b.SupportedApps {
		ap := bp + ".supportedApps[" + strconv.Itoa(j) + "]"
		if a.PackageName == "" {
			l.add(ap+".packageName", LintRequired, "an app's package name is required")
		}
		if len(a.SignatureHash) != signatureHashSize {
			l.add(ap+".signatureHash", LintInvalid, "an app's signature hash is exactly 11 characters")
		}
	}
	if strings.EqualFold(b.OTPType, "ZERO_TAP") && !b.ZeroTapTermsAccepted {
		l.add(bp+".zeroTapTermsAccepted", LintRequired, "a zero-tap button needs Meta's zero-tap terms accepted")
	}
}

// cards checks a carousel's cards.
func (l *linter) cards(p string, cards []DraftCard) []CardDef {
	if len(cards) < MinCards || len(cards) > MaxCards {
		l.add(p+".cards", LintDefinition, "a carousel has 2 to 10 cards; this one has "+strconv.Itoa(len(cards)))
	}
	out := make([]CardDef, 0, len(cards))
	for i, card := range cards {
		cp := p + ".cards[" + strconv.Itoa(i) + "]"
		var cd CardDef
		for j, c := range card.Components {
			ccp := cp + ".components[" + strconv.Itoa(j) + "]"
			switch strings.ToUpper(c.Type) {
			case "HEADER":
				f, _ := ParseHeaderFormat(strings.ToLower(c.Format))
				if f != HeaderImage && f != HeaderVideo {
					l.add(ccp+".format", LintDefinition, "a carousel card has an IMAGE or VIDEO header")
				} else if len(c.Example.HeaderHandle) == 0 || c.Example.HeaderHandle[0] == "" {
					l.add(ccp+".example.headerHandle", LintExample, "a card's header needs a sample: the handle of an uploaded file, or its URL")
				}
				cd.HeaderFormat = f
			case "BODY":
				cd.Body = c.Text
				l.text(ccp+".text", "a card's body", c.Text, 160, false)
				params := l.placeholders(ccp+".text", c.Text)
				l.examples(ccp, params, c.Example.BodyText, c.Example.NamedParams, "bodyText")
			case "BUTTONS":
				cd.Buttons = l.buttons(ccp, c.Buttons, false, true)
				if len(c.Buttons) > 2 {
					l.add(ccp+".buttons", LintButtons, "a carousel card has 1 or 2 buttons")
				}
			default:
				l.add(ccp+".type", LintInvalid, "a card's components are HEADER, BODY and BUTTONS")
			}
		}
		if cd.HeaderFormat.IsZero() {
			l.add(cp+".components", LintRequired, "a carousel card has an IMAGE or VIDEO header")
		}
		out = append(out, cd)
	}
	return out
}

// adjacentPlaceholders names the first two placeholders with only
// whitespace between them, or returns "".
func adjacentPlaceholders(text string) string {
	rest := text
	prev := ""
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			return ""
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			return ""
		}
		name := rest[i : i+j+2]
		if prev != "" && strings.TrimSpace(rest[:i]) == "" {
			return prev + " and " + name
		}
		prev = name
		rest = rest[i+j+2:]
	}
}

// hasEmoji reports whether s has a pictograph.
func hasEmoji(s string) bool {
	for _, r := range s {
		if r >= 0x1F000 || unicode.Is(unicode.So, r) {
			return true
		}
	}
	return false
}
