package sasl

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrJAAS means a JAAS file could not be read as one, or its Client
// section gives nothing zklock can use.
var ErrJAAS = errors.New("sasl: JAAS file")

// JAASClient is what zklock takes from a JAAS Client section: the
// mechanism its login module implies and that module's credentials.
type JAASClient struct {
	Mechanism string // "DIGEST-MD5" or "GSSAPI"
	User      string // DigestLoginModule username
	Password  string // DigestLoginModule password
	Keytab    string // Krb5LoginModule keyTab
	Principal string // Krb5LoginModule principal
	// TicketCache is Krb5LoginModule's ticketCache when useTicketCache is
	// true: the credential cache to read when there is no keytab.
	TicketCache string
}

// jaasEntry is one login module line of a section: its class and options.
type jaasEntry struct {
	module  string
	options map[string]string // keys in lower case
}

// ReadJAAS reads the section (ZooKeeper's clients use "Client") of the
// JAAS file at path.
func ReadJAAS(path, section string) (JAASClient, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return JAASClient{}, fmt.Errorf("%w: %w", ErrJAAS, err)
	}
	c, err := ParseJAAS(string(b), section)
	if err != nil {
		return JAASClient{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseJAAS reads the section of a JAAS configuration's text. It is
// tolerant as Java's parser is: comments (// and /* */), options quoted or
// not, any spacing, option names in any case. The first login module that
// zklock knows (DigestLoginModule, Krb5LoginModule) wins.
func ParseJAAS(text, section string) (JAASClient, error) {
	sections, err := parseJAASSections(text)
	if err != nil {
		return JAASClient{}, err
	}
	entries, ok := sections[section]
	if !ok {
		names := make([]string, 0, len(sections))
		for n := range sections {
			names = append(names, n)
		}
		return JAASClient{}, fmt.Errorf("%w: no %s section (has: %s)", ErrJAAS, section, strings.Join(names, ", "))
	}
	for _, e := range entries {
		switch {
		case strings.HasSuffix(e.module, "DigestLoginModule") || strings.HasSuffix(e.module, "PlainLoginModule"):
			c := JAASClient{Mechanism: "DIGEST-MD5", User: e.options["username"], Password: e.options["password"]}
			if c.User == "" {
				return JAASClient{}, fmt.Errorf("%w: %s in %s has no username", ErrJAAS, e.module, section)
			}
			return c, nil
		case strings.HasSuffix(e.module, "Krb5LoginModule"):
			c := JAASClient{Mechanism: "GSSAPI", Keytab: e.options["keytab"], Principal: e.options["principal"]}
			if strings.EqualFold(e.options["useticketcache"], "true") {
				c.TicketCache = e.options["ticketcache"]
			}
			return c, nil
		}
	}
	return JAASClient{}, fmt.Errorf("%w: section %s has no DigestLoginModule or Krb5LoginModule", ErrJAAS, section)
}

// parseJAASSections reads every section: Name { Module Flag key=value... ; ... };
func parseJAASSections(text string) (map[string][]jaasEntry, error) {
	toks, err := jaasTokens(text)
	if err != nil {
		return nil, err
	}
	out := map[string][]jaasEntry{}
	i := 0
	next := func() string {
		if i >= len(toks) {
			return ""
		}
		i++
		return toks[i-1]
	}
	for i < len(toks) {
		name := next()
		if next() != "{" {
			return nil, fmt.Errorf("%w: section %s: want {", ErrJAAS, name)
		}
		var entries []jaasEntry
		for {
			t := next()
			if t == "}" {
				break
			}
			if t == "" || t == "{" || t == ";" || t == "=" {
				return nil, fmt.Errorf("%w: section %s: want a login module or }, got %q", ErrJAAS, name, t)
			}
			e := jaasEntry{module: t, options: map[string]string{}}
			next() // the flag: required, requisite, sufficient, optional
			for {
				k := next()
				if k == ";" {
					break
				}
				if k == "" || k == "}" || next() != "=" {
					return nil, fmt.Errorf("%w: section %s: %s: want key=value or ;", ErrJAAS, name, e.module)
				}
				e.options[strings.ToLower(k)] = next()
			}
			entries = append(entries, e)
		}
		if i < len(toks) && toks[i] == ";" {
			i++
		}
		out[name] = entries
	}
	return out, nil
}

// jaasTokens splits a JAAS file into words, quoted strings (unquoted) and
// the punctuation { } ; =, dropping comments.
func jaasTokens(s string) ([]string, error) {
	var toks []string
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, "//") || s[0] == '#':
			_, s, _ = strings.Cut(s, "\n")
		case strings.HasPrefix(s, "/*"):
			var ok bool
			if _, s, ok = strings.Cut(s[2:], "*/"); !ok {
				return nil, fmt.Errorf("%w: unterminated /* comment", ErrJAAS)
			}
		case strings.ContainsRune(" \t\r\n", rune(s[0])):
			s = s[1:]
		case strings.ContainsRune("{};=", rune(s[0])):
			toks, s = append(toks, s[:1]), s[1:]
		case s[0] == '"':
			v, rest, err := unquote(s)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrJAAS, err)
			}
			toks, s = append(toks, v), rest
		default:
			end := strings.IndexAny(s, " \t\r\n{};=\"")
			if end < 0 {
				end = len(s)
			}
			toks, s = append(toks, s[:end]), s[end:]
		}
	}
	return toks, nil
}
