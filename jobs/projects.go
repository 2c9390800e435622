package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"tracker/projects"
)

// ProjectErrors are the projects whose step of a job's run failed. Every
// other project's step was done in the same run: a project that fails
// holds up no other. The run is recorded as failed with the projects named
// ("2 projects failed: aaa: …; bbb: …"), and the runner logs each.
type ProjectErrors struct {
	Failed []ProjectError
}

// ProjectError is why one project's step failed.
type ProjectError struct {
	Project string // the slug, or "#ID" once the project has none
	Err     error
}

func (e *ProjectErrors) Error() string {
	noun := "projects"
	if len(e.Failed) == 1 {
		noun = "project"
	}
	parts := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		parts[i] = f.Project + ": " + f.Err.Error()
	}
	return fmt.Sprintf("%d %s failed: %s", len(e.Failed), noun, strings.Join(parts, "; "))
}

func (e *ProjectErrors) Unwrap() []error {
	out := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		out[i] = f.Err
	}
	return out
}

// Names are the failed projects, in the order they were done.
func (e *ProjectErrors) Names() []string {
	out := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		out[i] = f.Project
	}
	return out
}

func (e *ProjectErrors) add(project string, err error) {
	e.Failed = append(e.Failed, ProjectError{Project: project, Err: err})
}

// err is e, or nil when no project failed.
func (e *ProjectErrors) err() error {
	if len(e.Failed) == 0 {
		return nil
	}
	return e
}

// eachProject runs step for every project, in order, going on past the
// ones that fail: their errors come back as a *ProjectErrors. Only the end
// of ctx stops it early (a stopped run), with the failures so far.
func eachProject(ctx context.Context, ps []projects.Project, step func(projects.Project) error) error {
	var failed ProjectErrors
	for _, p := range ps {
		if err := ctx.Err(); err != nil {
			return errors.Join(err, failed.err())
		}
		if err := step(p); err != nil {
			if ctx.Err() != nil {
				return errors.Join(err, failed.err())
			}
			failed.add(p.Slug, err)
		}
	}
	return failed.err()
}
