// Package scoping is ScopeKit's domain: every resource type and its rules,
// declared into a schema value that the generic engine (package engine)
// serves, and the use cases that are more than create, read, update and
// delete (pricing, approval, documents, accounts and people). It knows
// nothing of HTTP or of any store.
//
// # Modules
//
// The package's files are grouped by module; each module declares its
// types in declare* functions, and declarations (schema.go) lists them in
// the order NewSchema calls them:
//
//   - accounts and people: declareAccounts, declareSingleSignOn (accounts
//     and their settings, users, roles, identity providers; the actor of a
//     request);
//   - catalog: declareCatalog, declareUDF (services, subservices,
//     resources, rates, governances, blueprints, user-defined fields);
//   - projects and their pricing: declareProjects, declareGovernance
//     (projects and their lines, the prices stored on write);
//   - approval workflow: declareServiceApproval (the approved services;
//     the steps and requirements a project's approval goes through are
//     declared with the projects);
//   - documents queue: declareDocuments (templates, generated documents,
//     their jobs);
//   - webhooks: declareWebhooks, declareEvents (subscriptions, the event
//     outbox, deliveries).
//
// Which files and types each module has is the table of
// docs/architecture.md ("The domain's modules"), which TestModuleTable
// holds to the code; service.go, schema.go, decl.go, trace.go and this
// file wire the modules into the engine.
//
// # Hook points
//
// A module plugs its rules into the engine in three places:
//   - a type's declaration (engine.TypeDef.Hooks): Defaults, Validate,
//     AfterWrite, Create, Upsert, Delete, Compute and Prefetch run inside
//     the engine's use cases for that type;
//   - the engine's configuration (NewService: engine.Config): Scopes is the
//     actor's project visibility, Begin sets up each call (the domain's
//     per-call state, the stored prices written before the commit, what
//     runs after it), Touched restores a teammate a write names;
//   - the Service's fields, which the composition root sets: Now,
//     Webhooks (WebhookConfig: the sealer, the destination check, the
//     dispatcher's wake-up), Documents (DocumentConfig: the template
//     engine's checks, the built-in templates, the workers' wake-up), Log
//     and Tracer.
//
// The other way, scoping answers what others ask through their own
// interfaces: Directory (auth.Directory) and IdentityProviders
// (auth.IdentityProviders).
//
// # How the domain writes records
//
// A write that stands for one a user could make through the generic
// routes goes through the engine (engine.Call.CreateRecord,
// UpdateRecord), with the same input: the type's defaults, validation and
// hooks run as for that request (ApplyBlueprint adds each service as
// POST /project-services would; the catalog import writes each row so).
//
// Everything else is written raw, with the call's transaction
// (engine.Call.Tx: Insert, Replace, Delete):
//   - a record derived from another write in the same transaction: what a
//     project copies from the catalog (its phases, resources, subservices,
//     required governances), approval steps and requirements, events and
//     deliveries, stored price figures, an account's built-in templates,
//     the user of a first single sign-on. The module that derives it
//     builds it whole and valid (the write that caused it was checked,
//     and the engine's hooks would derive again); where a type's hook
//     derives the same record from a request, both take their values
//     from one function (fromCatalogResource for a project resource);
//   - what only a use case sets: a status, an approval, a document's file
//     and claim;
//   - provisioning (Admin, through Service.Setup): the accounts, roles and
//     first users that the engine's guards presuppose.
package scoping
