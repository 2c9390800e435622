// Package warriors keeps a record of each warrior that uses the tracker as
// its warrior HQ: who runs it, which seesaw, which project it picked, and
// roughly where it is. The Warriors page, its map and the gauges read
// them; nothing in the item engine depends on them.
package warriors

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/addrkey"
	"tracker/db"
	"tracker/naming"
	"tracker/projects"
)

const (
	// OnlineWindow is how recently a warrior must have called to count as
	// online: warriors call update.json every 10 minutes.
	OnlineWindow = 15 * time.Minute
	// Kept is how long a warrior's record outlives its last contact.
	Kept = 30 * 24 * time.Hour
	// RegistrationsPerHour is how many records one address (an IPv6
	// address: its /64, see addrkey) may create in an hour. Past it a
	// warrior is given Anonymous instead of failing: a flood from one
	// address cannot grow the table without bound.
	RegistrationsPerHour = 20
	// Anonymous is the id shared by the warriors registered past the limit.
	// Their updates are answered but not recorded.
	Anonymous = "anonymous"
)

// Store reads and writes the warriors' records.
type Store struct {
	q *db.Queries
}

func NewStore(pool *pgxpool.Pool) *Store { return &Store{q: db.Of(pool)} }

// Contact is what a warrior said in one call, with where it came from.
type Contact struct {
	// ID is the warrior's id ("" for the Docker warrior, which never
	// registers).
	ID              string
	Nick            string
	SelectedProject string
	// LatLng is the location the warrior sent, nil for none. Only whole
	// degrees are stored.
	LatLng []float64
	// UserAgent is the request's User-Agent, which names the seesaw
	// version and the runner type.
	UserAgent string
	// Version is the version the body of a registration names, used when
	// the User-Agent names none.
	Version string
	Address netip.Addr
}

// Register records a new warrior and returns its id, or Anonymous when its
// address has created RegistrationsPerHour records within the hour.
func (s *Store) Register(ctx context.Context, c Contact) (string, error) {
	id, err := newID()
	if err != nil {
		return "", err
	}
	version, runner := ParseUserAgent(c.UserAgent)
	if version == "" {
		version = cleanVersion(c.Version)
	}
	ids, err := s.q.WarriorRegister(ctx, db.WarriorRegisterParams{
		ID: id, SeesawVersion: version, RunnerType: runner,
		Address: registeredFrom(c.Address), MaxCreated: RegistrationsPerHour,
	})
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return Anonymous, nil
	}
	return id, nil
}

// Update records a warrior's periodic contact in one statement. An id the
// tracker does not know is given a record (within the registrations' limit
// per address); so is an empty one, under an id made from the address and
// the nick so that each call does not make another. Anonymous is not
// recorded. It says whether a record was written.
func (s *Store) Update(ctx context.Context, c Contact) (bool, error) {
	id := c.ID
	switch {
	case id == Anonymous:
		return false, nil
	case id == "":
		id = unnamedID(c.Address, c.Nick)
	case len(id) > 64 || naming.ValidLabel("warrior id", id) != nil:
		// Not an id this tracker or any other issues: the warrior still
		// gets its projects, but an odd key is not stored.
		return false, nil
	}
	version, runner := ParseUserAgent(c.UserAgent)
	p := db.WarriorUpdateParams{
		ID: id, Nick: cleanNick(c.Nick), SeesawVersion: version, RunnerType: runner,
		SelectedProject: cleanProject(c.SelectedProject),
		Address:         registeredFrom(c.Address), MaxCreated: RegistrationsPerHour,
	}
	if lat, lng, ok := Round(c.LatLng); ok {
		p.Lat, p.Lng = pgtype.Int2{Int16: lat, Valid: true}, pgtype.Int2{Int16: lng, Valid: true}
	}
	n, err := s.q.WarriorUpdate(ctx, p)
	return n > 0, err
}

// Prune drops the records not seen for Kept.
func (s *Store) Prune(ctx context.Context, now time.Time) (int64, error) {
	return s.q.WarriorsPrune(ctx, now.Add(-Kept))
}

// Place is a spot on the map: a whole-degree location and how many online
// warriors are there.
type Place struct {
	Lat, Lng int
	Warriors int64
}

// Online counts the warriors seen within OnlineWindow.
type Online struct {
	Total int64
	// Projects counts by selected project: a slug, "auto", or "" for
	// none.
	Projects map[string]int64
	// Versions counts by seesaw version ("" when the warrior named none).
	Versions map[string]int64
	// Places are the located warriors by whole degree, most first.
	Places []Place
}

// Online counts the warriors online at now.
func (s *Store) Online(ctx context.Context, now time.Time) (Online, error) {
	rows, err := s.q.WarriorsOnline(ctx, now.Add(-OnlineWindow))
	if err != nil {
		return Online{}, err
	}
	o := Online{Projects: map[string]int64{}, Versions: map[string]int64{}}
	places := map[[2]int]int64{}
	for _, r := range rows {
		o.Total += r.Warriors
		o.Projects[r.SelectedProject] += r.Warriors
		o.Versions[r.SeesawVersion] += r.Warriors
		if r.Lat.Valid && r.Lng.Valid {
			places[[2]int{int(r.Lat.Int16), int(r.Lng.Int16)}] += r.Warriors
		}
	}
	for at, n := range places {
		o.Places = append(o.Places, Place{Lat: at[0], Lng: at[1], Warriors: n})
	}
	sortPlaces(o.Places)
	return o, nil
}

// Outdated says whether a seesaw version is below the lowest the tracker
// asks for, compared number by number ("0.10.3" is newer than "0.8.5"). An
// unknown version is not called outdated.
func Outdated(version, lowest string) bool {
	return version != "" && lowest != "" && naming.CompareVersions(version, lowest) < 0
}

// ParseLatLng reads a location as a warrior sends it: a JSON array of two
// numbers, [lat, lng]. Anything else (null, numbers as strings, a number
// no float64 holds, more or fewer than two) is no location, nil: read
// leniently, such an array would come out as zeros, a dot at 0°, 0°.
func ParseLatLng(raw []byte) []float64 {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != 2 {
		return nil
	}
	out := make([]float64, 2)
	for i, part := range parts {
		// A JSON number starts so; a string, even one holding a number,
		// does not.
		part = bytes.TrimSpace(part)
		if len(part) == 0 || !strings.ContainsRune("-0123456789", rune(part[0])) {
			return nil
		}
		f, err := strconv.ParseFloat(string(part), 64)
		if err != nil {
			return nil // out of float64's range: ±Inf
		}
		out[i] = f
	}
	return out
}

// Round turns a location into whole degrees, the only precision stored. It
// refuses anything but two finite numbers within the globe.
func Round(latLng []float64) (lat, lng int16, ok bool) {
	if len(latLng) != 2 {
		return 0, 0, false
	}
	la, ln := latLng[0], latLng[1]
	if math.IsNaN(la) || math.IsNaN(ln) || math.IsInf(la, 0) || math.IsInf(ln, 0) ||
		la < -90 || la > 90 || ln < -180 || ln > 180 {
		return 0, 0, false
	}
	return int16(math.Round(la)), int16(math.Round(ln)), true
}

const userAgentPrefix = "ArchiveTeam Warrior/"

// ParseUserAgent reads "ArchiveTeam Warrior/<seesaw version> <runner type>
// <build>". Parts that are missing or not of their form come back empty.
func ParseUserAgent(ua string) (version, runner string) {
	rest, ok := strings.CutPrefix(ua, userAgentPrefix)
	if !ok {
		return "", ""
	}
	fields := strings.Fields(rest)
	if len(fields) > 0 {
		version = cleanVersion(fields[0])
	}
	if len(fields) > 1 && runnerRE.MatchString(fields[1]) {
		runner = fields[1]
	}
	return version, runner
}

var (
	// versionRE is a seesaw version: numbers with dots, maybe a pre-release
	// mark. Anything else is not stored, so the gauges' labels stay few.
	versionRE = regexp.MustCompile(`^[0-9]{1,6}(\.[0-9]{1,6}){0,3}([ab][0-9]{1,4})?$`)
	runnerRE  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)
)

func cleanVersion(v string) string {
	if versionRE.MatchString(v) {
		return v
	}
	return ""
}

func cleanNick(nick string) string {
	if naming.ValidNick(nick) != nil {
		return ""
	}
	return nick
}

func cleanProject(p string) string {
	if p == "auto" || projects.ValidSlug(p) == nil {
		return p
	}
	return ""
}

// registeredFrom is what a record keeps of the address that created it,
// which the registrations per hour are counted by: the address's network
// as addrkey.Of has it (an IPv4 address, the first address of an IPv6
// /64).
func registeredFrom(a netip.Addr) *netip.Addr {
	if !a.IsValid() {
		return nil
	}
	n := addrkey.Of(a).Addr()
	return &n
}

// newID is a fresh warrior id: 128 random bits, URL-safe.
func newID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// unnamedID keys the record of a warrior that sends no id by its address
// and nick, so its update every 10 minutes finds the same row.
func unnamedID(a netip.Addr, nick string) string {
	sum := sha256.Sum256([]byte("unnamed\x00" + a.String() + "\x00" + nick))
	return "unnamed-" + base64.RawURLEncoding.EncodeToString(sum[:12])
}

// sortPlaces orders places most warriors first, then north to south and
// west to east, so a page shows the same order each time.
func sortPlaces(ps []Place) {
	slices.SortFunc(ps, func(a, b Place) int {
		return cmp.Or(cmp.Compare(b.Warriors, a.Warriors), cmp.Compare(b.Lat, a.Lat), cmp.Compare(a.Lng, b.Lng))
	})
}
