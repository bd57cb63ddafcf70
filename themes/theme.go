package themes

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Default is the theme used when none is asked for.
const Default = "dark"

// Mono is the colorless theme, also chosen when NO_COLOR is set.
const Mono = "mono"

var (
	// ErrUnknown is returned by Load for a name no shipped theme has.
	ErrUnknown = errors.New("themes: unknown theme")
	// ErrInvalid is returned when theme data does not decode strictly.
	ErrInvalid = errors.New("themes: invalid theme")
)

//go:embed data/*.json
var shipped embed.FS

// Color is a terminal color: empty for the terminal's own default, the same
// value for every background, or a pair chosen by the terminal's background
// (Light on a light background, Dark on a dark one). A value is "#rgb",
// "#rrggbb" or an ANSI color number "0".."255".
type Color struct {
	Light, Dark string
}

// IsZero reports whether c leaves the terminal's default color.
func (c Color) IsZero() bool { return c.Light == "" && c.Dark == "" }

// Adaptive reports whether c differs by background.
func (c Color) Adaptive() bool { return c.Light != c.Dark }

// UnmarshalJSON accepts "#rrggbb" (any background) or
// {"light": "#rrggbb", "dark": "#rrggbb"}.
func (c *Color) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if err := checkColor(s); err != nil {
			return err
		}
		*c = Color{Light: s, Dark: s}
		return nil
	}
	var pair struct {
		Light *string `json:"light"`
		Dark  *string `json:"dark"`
	}
	if err := strictDecode(b, &pair); err != nil {
		return fmt.Errorf("color: want \"#rrggbb\" or {\"light\": ..., \"dark\": ...}: %w", err)
	}
	if pair.Light == nil || pair.Dark == nil {
		return errors.New("color: an adaptive color needs both \"light\" and \"dark\"")
	}
	for _, s := range []string{*pair.Light, *pair.Dark} {
		if err := checkColor(s); err != nil {
			return err
		}
	}
	*c = Color{Light: *pair.Light, Dark: *pair.Dark}
	return nil
}

var hexColor = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// checkColor accepts what lipgloss.Color understands, and nothing else:
// lipgloss silently draws an unknown color name as no color at all.
func checkColor(s string) error {
	if hexColor.MatchString(s) {
		return nil
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 255 && strconv.Itoa(n) == s {
		return nil
	}
	return fmt.Errorf("bad color %q: want #rgb, #rrggbb or an ANSI number 0-255", s)
}

// Spec is how one semantic element looks.
type Spec struct {
	Fg        Color `json:"fg"`
	Bg        Color `json:"bg"`
	Bold      bool  `json:"bold"`
	Faint     bool  `json:"faint"`
	Italic    bool  `json:"italic"`
	Underline bool  `json:"underline"`
	Reverse   bool  `json:"reverse"`
}

// HasColor reports whether s sets a foreground or background color.
func (s Spec) HasColor() bool { return !s.Fg.IsZero() || !s.Bg.IsZero() }

// Theme names what each element of the console means, not what color it
// is; Styles turns it into Lip Gloss styles.
type Theme struct {
	Name        string
	Description string

	Text        Spec // ordinary text
	Muted       Spec // secondary text: ages, hints, inferred facts
	Title       Spec // pane titles
	Header      Spec // the header bar and the status bar (background and text)
	Column      Spec // table column headings
	Border      Spec // pane borders
	FocusBorder Spec // the border of the focused pane
	Selection   Spec // the cursor row
	Holder      Spec // a node that holds its lock
	Waiter      Spec // a node that waits
	Own         Spec // the operator's own node
	Lost        Spec // the operator's lock is lost: must not be missed
	Stale       Spec // data that may be out of date (disconnected)
	Warning     Spec // missing watch, herd, suspended: needs a look
	Danger      Spec // split holders, deadlock, mixed recipes, destructive actions
	Alarm       Spec // the banner naming a split, a deadlock or a mixed queue
	Verified    Spec // a watch the servers confirm
	Missing     Spec // a watch the servers say is absent: a waiter that never wakes
	Inferred    Spec // a watch predicted by the recipe, not confirmed
	Key         Spec // key names in the help
}

// role ties a Spec to its key in theme files. One list serves decoding,
// completeness checks and tests, so a new element cannot be forgotten.
type role struct {
	key  string
	spec *Spec
}

func (t *Theme) roles() []role {
	return []role{
		{"text", &t.Text},
		{"muted", &t.Muted},
		{"title", &t.Title},
		{"header", &t.Header},
		{"column", &t.Column},
		{"border", &t.Border},
		{"focusBorder", &t.FocusBorder},
		{"selection", &t.Selection},
		{"holder", &t.Holder},
		{"waiter", &t.Waiter},
		{"own", &t.Own},
		{"lost", &t.Lost},
		{"stale", &t.Stale},
		{"warning", &t.Warning},
		{"danger", &t.Danger},
		{"alarm", &t.Alarm},
		{"verified", &t.Verified},
		{"missing", &t.Missing},
		{"inferred", &t.Inferred},
		{"key", &t.Key},
	}
}

// HasColor reports whether any element of t sets a color.
func (t Theme) HasColor() bool {
	for _, r := range t.roles() {
		if r.spec.HasColor() {
			return true
		}
	}
	return false
}

// Names lists the shipped themes, sorted.
func Names() []string {
	entries, err := shipped.ReadDir("data")
	if err != nil {
		// The directory is embedded at build time; it cannot be missing.
		panic(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(names)
	return names
}

// Load returns the shipped theme called name.
func Load(name string) (Theme, error) {
	var data []byte
	err := ErrUnknown
	if name != "" && !strings.ContainsAny(name, `/\.`) {
		data, err = shipped.ReadFile(path.Join("data", name+".json"))
	}
	if err != nil {
		return Theme{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	t, err := Parse(data)
	if err != nil {
		return Theme{}, fmt.Errorf("theme %s: %w", name, err)
	}
	if t.Name != name {
		return Theme{}, fmt.Errorf("%w: file %s.json names itself %q", ErrInvalid, name, t.Name)
	}
	return t, nil
}

// LoadEnv is Load, except that NO_COLOR set to any non-empty value (see
// no-color.org) selects the mono theme. name is still checked, so a typo
// in --theme is reported even when NO_COLOR hides its effect.
func LoadEnv(name string, getenv func(string) string) (Theme, error) {
	t, err := Load(name)
	if err != nil {
		return Theme{}, err
	}
	if getenv("NO_COLOR") != "" {
		return Load(Mono)
	}
	return t, nil
}

// Parse decodes a theme strictly: unknown keys, missing elements and
// colors lipgloss would not understand are errors, so that a typo never
// silently draws a warning in the terminal's default color.
func Parse(data []byte) (Theme, error) {
	var file struct {
		Name        string                     `json:"name"`
		Description string                     `json:"description"`
		Styles      map[string]json.RawMessage `json:"styles"`
	}
	if err := strictDecode(data, &file); err != nil {
		return Theme{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if file.Name == "" {
		return Theme{}, fmt.Errorf("%w: no \"name\"", ErrInvalid)
	}
	t := Theme{Name: file.Name, Description: file.Description}
	roles := t.roles()
	known := make(map[string]*Spec, len(roles))
	var keys []string
	for _, r := range roles {
		known[r.key] = r.spec
		keys = append(keys, r.key)
	}
	for key, raw := range file.Styles {
		spec, ok := known[key]
		if !ok {
			return Theme{}, fmt.Errorf("%w: unknown style %q (valid: %s)", ErrInvalid, key, strings.Join(keys, ", "))
		}
		if err := strictDecode(raw, spec); err != nil {
			return Theme{}, fmt.Errorf("%w: style %q: %w", ErrInvalid, key, err)
		}
	}
	for _, key := range keys {
		if _, ok := file.Styles[key]; !ok {
			return Theme{}, fmt.Errorf("%w: missing style %q (use {} for plain text)", ErrInvalid, key)
		}
	}
	return t, nil
}

// strictDecode decodes one JSON value into v, rejecting unknown fields and
// trailing data.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
