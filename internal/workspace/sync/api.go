// Package syncer is itr sync: it fetches a remote, brings its branch into
// the current one (a fast-forward, a merge or a rebase, as git's
// configuration says) with itr's merge driver and reconcile resolving
// itr's own files, rebuilds the state of the tasks the integration
// changed, and pushes the branch, never forcing; claims are fetched and
// archive refs travel both ways. It also says which refspecs make plain
// git fetch and git push carry itr's refs (itr setup).
//
// Every network step runs the git CLI through gitstate.Network, so the
// user's credentials, transports and hooks apply; the rebuild runs under
// itr's lock through the write path (package record).
//
// The folder is sync, the package syncer: a package named sync would
// shadow the standard library's sync in every file that imports it, so
// each importer would have to rename one of the two.
package syncer

import "github.com/itr-dev/itr/internal/workspace/store"

// clone is the store of the repository a sync runs in; its methods are
// the steps of a sync, reached from outside through the functions below.
type clone struct{ *store.Store }

// Sync fetches the remote, brings its branch into the current one (a
// merge or a rebase as pull.rebase / branch.<b>.rebase say, with itr's
// merge driver and reconcile resolving itr's files), rebuilds the state
// of tasks the integration changed, and pushes the branch, never forcing.
// A push the remote rejects because its branch moved meanwhile starts
// another round. Claims are fetched (they are pushed when taken), and
// archive refs go both ways without ever replacing one that differs.
//
// A sync that stops on conflicts outside itr's files returns the report
// so far and a *Stopped; any other refusal changes nothing.
func Sync(st *store.Store, req Request) (*Report, error) { return (&clone{st}).sync(req) }

// Refspecs returns the refspecs that make plain git fetch and git push
// carry itr's refs, for the branch's remote ("origin" when the repository
// has none yet).
func Refspecs(st *store.Store) RefspecAdvice { return (&clone{st}).refspecs() }
