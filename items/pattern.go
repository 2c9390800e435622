package items

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"
	"tracker/refusal"

	"github.com/jackc/pgx/v5/pgconn"
)

// The regular expressions admins search and select names with (the queue
// browser's, the bulk actions', `tracker queue move --pattern`) run in
// PostgreSQL, once per name read, and its engine has no bound of its own
// on what one match may cost. It matches most of its syntax with an
// automaton, in time linear in the name times the automaton's size, never
// backtracking: nested quantifiers such as (a+)+ cost it no more than
// a+. Two constructs it matches otherwise: a back-reference (\1) makes it
// try the ways the groups could match, which grows exponentially with the
// name; a lookahead or lookbehind constraint ((?=, (?!, (?<=, (?<!) runs
// a match of its own at every place of the name the automaton passes it,
// and one nested in another or in a quantifier multiplies (a search of
// 10,000 names of 8 KB with nested lookaheads ran for minutes).
//
// So a pattern is taken when it is short, holds neither of those, and
// stays small once its counted repetitions are written out (x{200} is two
// hundred x's to the automaton): then each name costs a bounded multiple
// of its length. To see that, the tracker reads the pattern with Go's
// regexp/syntax, which shares PostgreSQL's common syntax; a pattern in
// syntax of PostgreSQL's alone (\m, \y, [[:<:]], embedded options but i,
// m and s, ***: directors) is refused rather than guessed at.

// MaxPatternBytes bounds a regular expression of a search or a selection.
const MaxPatternBytes = 256

// maxPatternSize bounds a pattern's size with its repetitions written
// out, in instructions of Go's compiled form: about the states of the
// automaton PostgreSQL builds.
const maxPatternSize = 1000

// CheckPattern refuses a regular expression whose cost per name
// PostgreSQL cannot bound, or which is not one (InvalidError, reasons
// pattern-too-long, costly-pattern and bad-pattern). The empty pattern
// selects everything and is taken.
func CheckPattern(pattern string) error {
	if pattern == "" {
		return nil
	}
	if len(pattern) > MaxPatternBytes {
		return refusal.New(refusal.Invalid, "pattern-too-long", fmt.Errorf("the pattern is %d bytes: at most %d", len(pattern), MaxPatternBytes))
	}
	if what := costlyConstruct(pattern); what != "" {
		return refusal.New(refusal.Invalid, "costly-pattern", fmt.Errorf("the pattern holds %s, whose cost PostgreSQL does not bound: search without it", what))
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return refusal.New(refusal.Invalid, "bad-pattern", fmt.Errorf("invalid pattern: %v (searches take the syntax PostgreSQL shares with most regular expressions, not its own escapes such as \\m or \\y)", err))
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil || len(prog.Inst) > maxPatternSize {
		return refusal.New(refusal.Invalid, "costly-pattern", errors.New("the pattern is too large once its repetitions are written out: repeat less ({n} with a smaller n)"))
	}
	return nil
}

// costlyConstruct names the first back-reference or lookaround constraint
// of pattern, or is "". It looks everywhere, bracket expressions too: a
// bracket holding "(?=" is refused with the rest, and can be written
// otherwise.
func costlyConstruct(pattern string) string {
	for i := 0; i < len(pattern); i++ {
		switch {
		case pattern[i] == '\\' && i+1 < len(pattern):
			// \1 to \9 start a back-reference (PostgreSQL reads \12 as
			// one when there are twelve groups, as octal otherwise);
			// octal escapes start with \0.
			if c := pattern[i+1]; c >= '1' && c <= '9' {
				return "a back-reference (" + pattern[i:i+2] + ")"
			}
			i++ // the escaped character is no syntax
		case strings.HasPrefix(pattern[i:], "(?="), strings.HasPrefix(pattern[i:], "(?!"):
			return "a lookahead constraint (" + pattern[i:i+3] + ")"
		case strings.HasPrefix(pattern[i:], "(?<="), strings.HasPrefix(pattern[i:], "(?<!"):
			return "a lookbehind constraint (" + pattern[i:i+4] + ")"
		}
	}
	return ""
}

// check refuses sel's pattern as CheckPattern does, but the one Exactly
// makes: a name, quoted, whose cost is its length.
func (sel Selection) check() error {
	if sel.exact {
		return nil
	}
	return CheckPattern(sel.Pattern)
}

// searchRefusal turns PostgreSQL's refusal of a search into the admin's
// mistake: a regular expression it does not take, or a search it stopped
// at the statement timeout of the connection's pool (an admin's reads
// have a short one), which the admin narrows or runs from the shell.
func searchRefusal(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "57014" {
		return refusal.New(refusal.Invalid, "search-too-costly", errors.New("the search was stopped: it read for longer than an admin's read may "+
			"(narrow it: a prefix, a simpler pattern, a smaller page; a bulk change of that many items runs from the shell, tracker queue move)"))
	}
	return badPattern(err)
}
