// Package users holds the admin accounts of the web panel.
package users

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/db"
)

// Roles.
const (
	RoleAdmin        = "admin"         // every project, users, global settings
	RoleProjectAdmin = "project_admin" // the projects granted to the account
)

var ErrExists = errors.New("a user with that name exists already")

// bcryptCost makes one hash take a few hundred milliseconds: slow for anyone
// guessing offline, fine for a login form.
const bcryptCost = 12

// MinPasswordRunes is the shortest password accepted.
const MinPasswordRunes = 10

var usernameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Store reads and writes accounts.
type Store struct {
	q *db.Queries
}

func NewStore(pool *pgxpool.Pool) *Store { return &Store{q: db.New(pool)} }

// Create adds an account with the given role and password.
func (s *Store) Create(ctx context.Context, username, password, role string) (db.User, error) {
	if !usernameRE.MatchString(username) {
		return db.User{}, fmt.Errorf("invalid username %q: 1-64 letters, digits, '.', '-' and '_'", username)
	}
	if role != RoleAdmin && role != RoleProjectAdmin {
		return db.User{}, fmt.Errorf("unknown role %q", role)
	}
	hash, err := hashPassword(password)
	if err != nil {
		return db.User{}, err
	}
	u, err := s.q.UserInsert(ctx, db.UserInsertParams{Username: username, PasswordHash: hash, Role: role})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return db.User{}, fmt.Errorf("%w: %s", ErrExists, username)
	}
	return u, err
}
