package themes

import (
	"errors"
	"strings"
	"testing"
)

func TestLoadEveryShippedTheme(t *testing.T) {
	names := Names()
	want := []string{"dark", "high-contrast", "light", "mono"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("Names() = %v, want %v", names, want)
	}
	for _, name := range names {
		th, err := Load(name)
		if err != nil {
			t.Fatalf("Load(%q): %v", name, err)
		}
		if th.Name != name || th.Description == "" {
			t.Errorf("Load(%q) = name %q description %q", name, th.Name, th.Description)
		}
		_ = th.Styles() // must not panic
	}
}

func TestMonoHasNoColor(t *testing.T) {
	th, err := Load(Mono)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range th.roles() {
		if r.spec.HasColor() || r.spec.Faint || r.spec.Italic {
			t.Errorf("mono style %q = %+v: want only bold, underline, reverse", r.key, *r.spec)
		}
	}
	if th.HasColor() {
		t.Error("mono HasColor() = true")
	}
}

func TestDefaultIsAdaptive(t *testing.T) {
	th, err := Load(Default)
	if err != nil {
		t.Fatal(err)
	}
	// Text and borders must follow the background: a dark theme's near-white
	// text vanishes on a light terminal.
	for _, s := range []Spec{th.Text, th.Muted, th.Border, th.Header} {
		if !s.Fg.Adaptive() {
			t.Errorf("default theme color %+v is not adaptive", s.Fg)
		}
	}
}

// Elements that must not be missed are distinguishable from ordinary text in
// every theme, color or not.
func TestLoudElementsStandOut(t *testing.T) {
	for _, name := range Names() {
		th, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		for key, s := range map[string]Spec{"alarm": th.Alarm, "lost": th.Lost, "selection": th.Selection} {
			if s.Bg.IsZero() && !s.Reverse {
				t.Errorf("%s: %s has neither a background nor reverse", name, key)
			}
		}
		if th.Own == th.Text || th.Danger == th.Text || th.Holder == th.Text {
			t.Errorf("%s: own, danger or holder looks like plain text", name)
		}
	}
}

func TestLoadUnknown(t *testing.T) {
	for _, name := range []string{"nope", "", "../dark", "dark.json"} {
		_, err := Load(name)
		if !errors.Is(err, ErrUnknown) {
			t.Fatalf("Load(%q) = %v, want ErrUnknown", name, err)
		}
		if !strings.Contains(err.Error(), "dark, high-contrast, light, mono") {
			t.Errorf("error %q does not list the valid names", err)
		}
	}
}

func TestLoadEnv(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "NO_COLOR" {
				return v
			}
			return ""
		}
	}
	if th, err := LoadEnv("dark", env("1")); err != nil || th.Name != Mono {
		t.Errorf("NO_COLOR=1: got %q, %v; want mono", th.Name, err)
	}
	if th, err := LoadEnv("light", env("")); err != nil || th.Name != "light" {
		t.Errorf("NO_COLOR empty: got %q, %v; want light", th.Name, err)
	}
	if _, err := LoadEnv("bogus", env("1")); !errors.Is(err, ErrUnknown) {
		t.Errorf("NO_COLOR with a bad name: %v, want ErrUnknown", err)
	}
}

func TestParseStrict(t *testing.T) {
	full := func(override string) string {
		var parts []string
		var th Theme
		for _, r := range th.roles() {
			parts = append(parts, `"`+r.key+`": {}`)
		}
		if override != "" {
			parts = append(parts[1:], override) // replaces "text"
		}
		return `{"name": "t", "styles": {` + strings.Join(parts, ", ") + `}}`
	}
	if _, err := Parse([]byte(full(""))); err != nil {
		t.Fatalf("minimal theme: %v", err)
	}
	tests := []struct {
		name, data, want string
	}{
		{"unknown top-level key", `{"name": "t", "colour": 1, "styles": {}}`, "unknown field"},
		{"unknown style", full(`"text": {}, "holdr": {}`), `unknown style "holdr"`},
		{"unknown attribute", full(`"text": {"blink": true}`), "unknown field"},
		{"missing style", `{"name": "t", "styles": {"text": {}}}`, "missing style"},
		{"color name", full(`"text": {"fg": "red"}`), `bad color "red"`},
		{"short hex", full(`"text": {"fg": "#12"}`), "bad color"},
		{"ansi out of range", full(`"text": {"fg": "256"}`), "bad color"},
		{"ansi leading zero", full(`"text": {"fg": "07"}`), "bad color"},
		{"half adaptive", full(`"text": {"fg": {"dark": "#fff"}}`), "both"},
		{"adaptive extra key", full(`"text": {"fg": {"dark": "#fff", "light": "#000", "dim": "#111"}}`), "unknown field"},
		{"no name", `{"styles": {}}`, "no \"name\""},
		{"trailing", full("") + "{}", "trailing"},
		{"not json", `name: dark`, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data))
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}

func TestColorForms(t *testing.T) {
	data := strings.Replace(mustRead(t, "dark"), `"text":        {"fg": {"light": "#1f2328", "dark": "#e6edf3"}}`, `"text": {"fg": "#abc", "bg": "12"}`, 1)
	th, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if th.Text.Fg != (Color{"#abc", "#abc"}) || th.Text.Bg != (Color{"12", "12"}) || th.Text.Fg.Adaptive() {
		t.Errorf("text = %+v", th.Text)
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := shipped.ReadFile("data/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
