package handlers

import (
	"net/http"
	"strings"
	"time"

	"tracker/projects"
)

// apiBlock is a block as the admin API answers it (openapi.yaml, Block).
type apiBlock struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
	// Scope is "project" for a block of this project, "all" for one of
	// every project.
	Scope     string    `json:"scope"`
	Reason    string    `json:"reason"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
}

// apiBlocks is GET /api/v1/projects/{slug}/blocks: the blocks that apply
// to the project, its own and those of every project.
func (h *Handler) apiBlocks(w http.ResponseWriter, r *http.Request) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	bs, err := h.adm.projects.Blocks(r.Context(), p)
	if err != nil {
		return err
	}
	out := make([]apiBlock, len(bs))
	for i, b := range bs {
		scope := "project"
		if b.ProjectID == nil {
			scope = "all"
		}
		out[i] = apiBlock{Kind: b.Kind, Value: b.Value, Scope: scope, Reason: b.Reason, CreatedBy: b.CreatedBy, CreatedAt: b.CreatedAt}
	}
	return writeJSON(w, http.StatusOK, map[string][]apiBlock{"blocks": out})
}

// blockChange is the body of POST .../blocks/add and .../blocks/remove.
type blockChange struct {
	Kind   string `json:"kind"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
	// Scope "all" is every project (a global admin's token of every
	// project); anything else this one.
	Scope string `json:"scope"`
}

func (b blockChange) texts() []string { return []string{b.Kind, b.Value, b.Reason, b.Scope} }

// apiBlockAdd is POST /api/v1/projects/{slug}/blocks/add: a nick, or an
// IP address or network, is refused work on the project (or on every
// project), as the panel blocks it.
func (h *Handler) apiBlockAdd(w http.ResponseWriter, r *http.Request) error {
	return h.apiBlockAction(w, r, func(b projects.Block) error {
		b.CreatedBy = account(r).Username
		return h.projects.AddBlock(r.Context(), b)
	})
}

// apiBlockRemove is POST /api/v1/projects/{slug}/blocks/remove: the block
// of kind and value (and scope) is lifted.
func (h *Handler) apiBlockRemove(w http.ResponseWriter, r *http.Request) error {
	return h.apiBlockAction(w, r, func(b projects.Block) error {
		found, err := h.projects.RemoveBlock(r.Context(), b)
		if err == nil && !found {
			err = errorf(http.StatusNotFound, "unknown-block", "no block of %s %s here", b.Kind, b.Value)
		}
		return err
	})
}

func (h *Handler) apiBlockAction(w http.ResponseWriter, r *http.Request, fn func(projects.Block) error) error {
	p, err := h.apiProject(r)
	if err != nil {
		return err
	}
	var c blockChange
	if err := h.apiDecode(w, r, &c); err != nil {
		return err
	}
	b, err := projects.ParseBlock(c.Kind, strings.TrimSpace(c.Value))
	if err != nil {
		return errorf(http.StatusBadRequest, "invalid-block", "%v", err)
	}
	b.Reason = strings.TrimSpace(c.Reason)
	if c.Scope == "all" {
		if err := apiGlobal(r); err != nil {
			return err
		}
	} else {
		b.ProjectID = &p.ID
	}
	if err := fn(b); err != nil {
		if e := textRefusal(err); e != nil {
			return e
		}
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]string{"kind": b.Kind, "value": b.Value})
}
