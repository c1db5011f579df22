// Command reportshot builds the demo task (internal/reportdemo) in a
// temporary repository, writes its itr report and screenshots it with a
// headless Chromium: `make screenshot` regenerates docs/report.png with it
// (-html also copies the page somewhere, to look at it in a browser), and
// docs/report-1280.png and docs/report-1920.png of the larger checkout demo
// (-demo checkout: twelve units in six layers) at those window widths.
//
//	go run ./internal/reportshot -itr bin/itr -out docs/report.png
//	go run ./internal/reportshot -itr bin/itr -demo checkout -width 1920 -out docs/report-1920.png
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/itr-dev/itr/internal/atomicfile"
	"github.com/itr-dev/itr/internal/reportdemo"
)

func main() {
	itr := flag.String("itr", "bin/itr", "the itr binary")
	out := flag.String("out", "docs/report.png", "the screenshot to write")
	htmlOut := flag.String("html", "", "also copy the report here")
	width := flag.Int("width", 1280, "window width")
	height := flag.Int("height", 2000, "window height")
	demo := flag.String("demo", "auth", "the demo task: auth (user authentication) or checkout (twelve units in six layers)")
	flag.Parse()
	if err := run(*itr, *demo, *out, *htmlOut, *width, *height); err != nil {
		fmt.Fprintln(os.Stderr, "reportshot:", err)
		os.Exit(1)
	}
}

func run(itr, demo, out, htmlOut string, width, height int) error {
	chromium, itr, base, err := reportdemo.ShotSetup(itr, "itr-reportshot-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	var repo *reportdemo.Repo
	switch demo {
	case "auth":
		repo, err = reportdemo.Build(itr, base, false)
	case "checkout":
		repo, err = reportdemo.BuildCheckout(itr, base)
	default:
		return fmt.Errorf("-demo %q: choose auth or checkout", demo)
	}
	if err != nil {
		return err
	}
	page := filepath.Join(base, "report.html")
	if _, err := repo.Run([]string{"itr", "report", "--out", page}); err != nil {
		return err
	}
	shot := filepath.Join(base, "shot.png")
	_, stderr, err := reportdemo.Chromium(chromium, filepath.Join(base, "profile"), 60*time.Second,
		[]string{"--screenshot=" + shot, fmt.Sprintf("--window-size=%d,%d", width, height), "--force-device-scale-factor=1"},
		"file://"+filepath.ToSlash(page))
	if err != nil {
		return fmt.Errorf("chromium: %w\n%s", err, stderr)
	}
	if p := reportdemo.Problems(stderr); len(p) > 0 {
		return fmt.Errorf("chromium reported problems:\n%s", strings.Join(p, "\n"))
	}
	data, err := os.ReadFile(shot)
	if err != nil {
		return err
	}
	if err := reportdemo.WriteShot(out, data); err != nil {
		return err
	}
	if htmlOut != "" {
		html, err := os.ReadFile(page)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(htmlOut, html, 0o644); err != nil {
			return err
		}
		fmt.Printf("Wrote %s (%d KB)\n", htmlOut, (len(html)+1023)/1024)
	}
	return nil
}
