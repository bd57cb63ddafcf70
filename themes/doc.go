// Package themes holds the console's Lip Gloss styles as data: shipped
// themes are embedded files decoded strictly into a semantic Theme, which
// is turned into Styles. It imports nothing from the rest of zklock.
//
// A theme file (data/NAME.json) names every element of the console by what
// it means, never by color:
//
//	{
//	  "name": "dark",
//	  "description": "...",
//	  "styles": {
//	    "holder": {"fg": "#3fb950", "bold": true},
//	    "text":   {"fg": {"light": "#1f2328", "dark": "#e6edf3"}},
//	    "alarm":  {"fg": "#ffffff", "bg": "#b62324", "bold": true},
//	    ...
//	  }
//	}
//
// A color is "#rgb", "#rrggbb" or an ANSI number "0".."255", or a
// {"light", "dark"} pair chosen by the terminal's background. Attributes are
// bold, faint, italic, underline and reverse. Unknown keys, missing elements
// (write {} for plain text) and colors Lip Gloss would not understand are
// errors. The mono theme uses no color at all and is what NO_COLOR selects.
//
// Files: theme.go (Theme, Color, the element names, Load and the embedded
// data/*.json, decoded strictly), styles.go (Styles: a Theme's elements as
// Lip Gloss styles, built once per theme).
package themes
