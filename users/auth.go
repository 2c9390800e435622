package users

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"

	"tracker/db"
)

// ErrBadLogin is every failed login: unknown user and wrong password alike,
// so the answer does not tell which names exist.
var ErrBadLogin = errors.New("wrong username or password")

// dummyHash is compared against when the user does not exist, so a login
// for an unknown name takes as long as one for a known name.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("no such user, no such password"), bcryptCost)
	return h
})

// authenticate returns the user whose name and password these are.
func (s *Store) authenticate(ctx context.Context, username, password string) (db.User, error) {
	u, err := s.q.UserGetByName(ctx, username)
	if errors.Is(err, pgx.ErrNoRows) {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return db.User{}, ErrBadLogin
	}
	if err != nil {
		return db.User{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) != nil {
		return db.User{}, ErrBadLogin
	}
	return u, nil
}

// ErrNoUser means no account has that id.
var ErrNoUser = errors.New("no such user")

// Account is a user and what they may run; never their password hash.
type Account struct {
	ID        int32
	Username  string
	Role      string
	CreatedAt time.Time
	// Projects are the ids of the projects a project admin was granted.
	Projects []int32
}

func account(u db.User, projects []int32) Account {
	return Account{ID: u.ID, Username: u.Username, Role: u.Role, CreatedAt: u.CreatedAt, Projects: projects}
}

// IsAdmin says whether the account runs everything.
func (a Account) IsAdmin() bool { return a.Role == RoleAdmin }

// CanRun says whether the account may run the project.
func (a Account) CanRun(projectID int32) bool {
	return a.IsAdmin() || slices.Contains(a.Projects, projectID)
}

// Account reads an account and its grants.
func (s *Store) Account(ctx context.Context, id int32) (Account, error) {
	u, err := s.q.UserGet(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, ErrNoUser
	}
	if err != nil {
		return Account{}, err
	}
	ps, err := s.q.UserProjects(ctx, id)
	return account(u, ps), err
}
