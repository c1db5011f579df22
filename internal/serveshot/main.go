// Command serveshot builds the demo task (internal/reportdemo) in a
// temporary repository, serves its board with itr serve and screenshots
// it in a headless Chromium before and after a checkpoint made by another
// itr process (the board changes in place): `make serve-screenshots`
// regenerates docs/serve-before.png and docs/serve-after.png with it.
//
//	go run ./internal/serveshot -itr bin/itr -before docs/serve-before.png -after docs/serve-after.png
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/itr-dev/itr/internal/cdppipe"
	"github.com/itr-dev/itr/internal/reportdemo"
	"github.com/itr-dev/itr/internal/servedemo"
)

func main() {
	itr := flag.String("itr", "bin/itr", "the itr binary")
	before := flag.String("before", "docs/serve-before.png", "the screenshot before the checkpoint")
	after := flag.String("after", "docs/serve-after.png", "the screenshot after it")
	width := flag.Int("width", 1280, "window width")
	height := flag.Int("height", 900, "window height")
	flag.Parse()
	if err := run(*itr, *before, *after, *width, *height); err != nil {
		fmt.Fprintln(os.Stderr, "serveshot:", err)
		os.Exit(1)
	}
}

func run(itr, before, after string, width, height int) error {
	chromium, itr, base, err := reportdemo.ShotSetup(itr, "itr-serveshot-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	repo, err := reportdemo.Build(itr, base, false)
	if err != nil {
		return err
	}
	if _, err := repo.Run(servedemo.Claim); err != nil {
		return err
	}
	srv, err := servedemo.Serve(repo)
	if err != nil {
		return err
	}
	defer srv.Close()
	b, err := cdppipe.Start(chromium, filepath.Join(base, "profile"))
	if err != nil {
		return err
	}
	defer b.Close()
	page, err := b.Open(srv.URL, width, height)
	if err != nil {
		return err
	}
	if err := page.WaitFor(`document.getElementById("live").className === "live"`, 20*time.Second); err != nil {
		return err
	}
	var stamp string
	if err := page.Eval(servedemo.StampJS, &stamp); err != nil {
		return err
	}
	if err := shoot(page, before); err != nil {
		return err
	}
	if _, err := repo.Run(servedemo.Checkpoint); err != nil {
		return err
	}
	if err := page.WaitFor(fmt.Sprintf("%s !== %q", servedemo.StampJS, stamp), 10*time.Second); err != nil {
		return err
	}
	if err := shoot(page, after); err != nil {
		return err
	}
	if p := page.Problems(); len(p) > 0 {
		return fmt.Errorf("chromium reported problems: %v", p)
	}
	if _, err := srv.Stop(15 * time.Second); err != nil {
		return err
	}
	return nil
}

// shoot writes a screenshot of the whole page to out.
func shoot(page *cdppipe.Page, out string) error {
	data, err := page.Screenshot()
	if err != nil {
		return err
	}
	return reportdemo.WriteShot(out, data)
}
