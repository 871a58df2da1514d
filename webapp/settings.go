package webapp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The settings' frame: the menu (a side menu in the classic design, tabs
// above the page in the modern one), the design a person chose, and the
// routes.

// Settings designs, as user_preferences keeps them (PATCH /v1/me).
const (
	designClassic = "classic"
	designModern  = "modern"
	// prefDesign is the user's preference attribute (set by
	// scoping.UpdatePreferences).
	prefDesign = "settings-design"
)

// settingsRoutes declares the settings' pages and actions.
func (w *Workspace) settingsRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /app/{slug}/settings", w.page(w.settingsHome))
	m.HandleFunc("GET /app/{slug}/settings/preferences", w.page(w.preferences))
	m.HandleFunc("POST /app/{slug}/settings/preferences", w.action(w.savePreferences))
	m.HandleFunc("GET /app/{slug}/settings/account", w.page(w.accountPage))
	m.HandleFunc("POST /app/{slug}/settings/account", w.action(w.saveAccount))
	m.HandleFunc("GET /app/{slug}/settings/sign-in", w.page(w.accountPage))
	m.HandleFunc("POST /app/{slug}/settings/sign-in", w.action(w.saveAccount))
	w.importRoutes(m)

	m.HandleFunc("GET /app/{slug}/settings/{key}", w.page(w.settingsList))
	m.HandleFunc("GET /app/{slug}/settings/{key}/new", w.page(w.newRecord))
	m.HandleFunc("POST /app/{slug}/settings/{key}", w.action(w.createRecord))
	m.HandleFunc("GET /app/{slug}/settings/{key}/{id}", w.page(w.recordPage))
	m.HandleFunc("POST /app/{slug}/settings/{key}/{id}", w.action(w.updateRecord))
	m.HandleFunc("POST /app/{slug}/settings/{key}/{id}/{act}", w.action(w.recordAction))
	w.templateRoutes(m)
}

// menu is the settings' menu as the person's role shows it.
type menu struct {
	Design   string
	Families []menuFamily
	Family   *menuFamily // the current page's
	Current  string      // the current section's key
}

type menuFamily struct {
	Key, Title, Href string
	Entries          []menuEntry
}

type menuEntry struct{ Key, Title, Href string }

// frame is what every settings page shows around its body.
type frame struct {
	L *layout
	M *menu
	S *section
}

// visible reports whether the actor may read what section s shows.
func (w *Workspace) visible(c *call, s *section) bool {
	if s.Parent != "" {
		return false // shown on its parent's page
	}
	guard := s.Guard
	if s.Type != "" {
		guard = guardOf(w, s.Type)
	}
	return c.actor.Can(guard, false)
}

// menuOf builds the menu with current as the current section.
func (w *Workspace) menuOf(c *call, current *section) *menu {
	m := &menu{Design: designOf(c)}
	for _, f := range families {
		mf := menuFamily{Key: f.Key, Title: f.Title}
		for _, s := range sections {
			if s.Family == f.Key && w.visible(c, s) {
				mf.Entries = append(mf.Entries, menuEntry{Key: s.Key, Title: s.Title, Href: c.url("/settings/" + s.Key)})
			}
		}
		if len(mf.Entries) > 0 {
			mf.Href = mf.Entries[0].Href
			m.Families = append(m.Families, mf)
		}
	}
	if current != nil {
		m.Current = current.Key
		for i := range m.Families {
			if m.Families[i].Key == current.Family {
				m.Family = &m.Families[i]
			}
		}
	}
	return m
}

// frameOf is the frame of a page of section s (title: the page's).
func (w *Workspace) frameOf(c *call, s *section, title string) frame {
	l := c.layout(title, "settings")
	l.Flash = doneMessages[c.r.URL.Query().Get("done")]
	return frame{L: l, M: w.menuOf(c, s), S: s}
}

// doneMessages are the notices a page shows after a change sent it there
// (?done=...): fixed words, never text from the address.
var doneMessages = map[string]string{
	"created": "Created.", "saved": "Saved.", "archived": "Archived.", "restored": "Restored.", "deleted": "Deleted.",
	"deactivated": "Deactivated: the person's sessions and tokens in this account have ended.",
	"mfa-reset":   "The second factor was removed: the next sign-in sets one up again where the account requires it.",
	"verified":    "The domain is verified.", "uploaded": "The file was checked and stored.", "converted": "Converted to a service account.",
	"imported": "The catalog was imported.",
}

// designOf is the person's settings design (classic until they choose).
func designOf(c *call) string {
	if c.actor.User != nil && c.actor.User.Str(prefDesign) == designModern {
		return designModern
	}
	return designClassic
}

// settingsHome sends the person to the first section they may read.
func (w *Workspace) settingsHome(c *call) error {
	m := w.menuOf(c, nil)
	if len(m.Families) == 0 {
		return scopekit.Errorf(scopekit.EFORBIDDEN, "Your role opens none of the settings.")
	}
	return c.redirect(m.Families[0].Href)
}

// canSettings reports whether the actor sees any settings (the top menu's
// entry).
func (w *Workspace) canSettings(c *call) bool {
	for _, s := range sections {
		if w.visible(c, s) {
			return true
		}
	}
	return false
}

// pageOf returns the section of the path that is a page of its own, 403
// when the role may not read it.
func (w *Workspace) pageOf(c *call, key string) (*section, error) {
	s := sectionByKey[key]
	guard := s.Guard
	if err := c.actor.Require(guard, false); err != nil {
		return nil, err
	}
	return s, nil
}

type preferencesPage struct {
	frame
	Design    string
	CanChange bool
	Designs   []option
}

// preferences shows the settings design switch.
func (w *Workspace) preferences(c *call) error { return w.showPreferences(c, http.StatusOK, nil) }

func (w *Workspace) showPreferences(c *call, status int, errs []fieldError) error {
	s, err := w.pageOf(c, "preferences")
	if err != nil {
		return err
	}
	pg := &preferencesPage{frame: w.frameOf(c, s, s.Title), Design: designOf(c), CanChange: c.canManage("user_preferences"),
		Designs: []option{{designClassic, "Classic: a menu at the side, each form on a page of its own"},
			{designModern, "Modern: tabs above the page, records edited where they are listed"}}}
	pg.L.Errors = errs
	w.render(c.rw, status, "preferences", "layout", pg)
	return nil
}

// savePreferences switches the design through the use case of PATCH
// /v1/me (user_preferences manage).
func (w *Workspace) savePreferences(c *call) error {
	v, err := c.value(prefDesign)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(v)
	_, err = w.svc.UpdatePreferences(c.ctx(), c.actor, &engine.Input{Attrs: map[string]json.RawMessage{prefDesign: raw}})
	if scopekit.ErrorCode(err) == scopekit.EINVALID {
		status, errs := w.describe(err)
		return w.showPreferences(c, status, errs)
	}
	if err != nil {
		return err
	}
	back, _ := c.value("back")
	if !safeBack(c, back) {
		back = c.url("/settings/preferences")
	}
	return c.redirect(back + "?done=saved")
}

// safeBack reports whether back is a settings page of the call's
// account (where a form may send the person back to).
func safeBack(c *call, back string) bool {
	u, err := url.Parse(back)
	return err == nil && u.Scheme == "" && u.Host == "" && u.RawQuery == "" && u.Fragment == "" &&
		len(back) < 512 && back == u.EscapedPath() && strings.HasPrefix(back, c.url("/settings/"))
}

type accountPage struct {
	frame
	Name, Slug, Currency string
	Locale               string
	MFARequired          bool
	CanManage            bool
	Errors               map[string]string
}

// accountPage shows the account's settings (/account: its locale) or its
// sign-in settings (/sign-in: whether everyone gives a second factor).
func (w *Workspace) accountPage(c *call) error {
	return w.showAccount(c, http.StatusOK, nil, nil)
}

func (w *Workspace) showAccount(c *call, status int, posted map[string]string, errs []fieldError) error {
	key := "account"
	if strings.HasSuffix(c.r.URL.Path, "/sign-in") {
		key = "sign-in"
	}
	s, err := w.pageOf(c, key)
	if err != nil {
		return err
	}
	res, err := w.svc.Account(c.ctx(), c.actor)
	if err != nil {
		return err
	}
	a := views.Account{Record: res.Records[0]}
	pg := &accountPage{frame: w.frameOf(c, s, s.Title), Name: a.Name(), Slug: a.Slug(), Currency: a.DefaultCurrency(),
		Locale: a.Locale(), MFARequired: a.MfaRequired(), CanManage: c.canManage("settings"), Errors: map[string]string{}}
	if v, ok := posted[views.NameLocale]; ok {
		pg.Locale = v
	}
	for _, e := range errs {
		if e.Field == views.NameLocale || e.Field == views.NameMfaRequired {
			pg.Errors[e.Field] = e.Message
		} else {
			pg.L.Errors = append(pg.L.Errors, e)
		}
	}
	w.render(c.rw, status, "account", "layout", pg)
	return nil
}

// saveAccount changes the account's locale or its mfa-required through
// the use case of PATCH /{slug}/v1/account.
func (w *Workspace) saveAccount(c *call) error {
	in := &engine.Input{Attrs: map[string]json.RawMessage{}}
	posted := map[string]string{}
	if _, ok := c.form[views.NameLocale]; ok {
		v, err := c.value(views.NameLocale)
		if err != nil {
			return err
		}
		posted[views.NameLocale] = v
		in.Attrs[views.NameLocale], _ = json.Marshal(v)
	}
	if _, ok := c.form[views.NameMfaRequired]; ok {
		in.Attrs[views.NameMfaRequired] = json.RawMessage("false")
		for _, v := range c.form[views.NameMfaRequired] {
			if v == "true" {
				in.Attrs[views.NameMfaRequired] = json.RawMessage("true")
			}
		}
	}
	if len(in.Attrs) == 0 {
		return scopekit.Errorf(scopekit.EBADREQUEST, "The form changes nothing.")
	}
	_, err := w.svc.UpdateAccount(c.ctx(), c.actor, in)
	if code := scopekit.ErrorCode(err); code == scopekit.EINVALID {
		status, errs := w.describe(err)
		return w.showAccount(c, status, posted, errs)
	}
	if err != nil {
		return err
	}
	return c.redirect(c.r.URL.Path + "?done=saved")
}
