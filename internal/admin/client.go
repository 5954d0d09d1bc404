package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"syscall"
)

// Client calls a node's admin API.
type Client struct {
	// Host and Port of the node's admin port.
	Host string
	Port int
	// HTTP is the client used (default http.DefaultClient).
	HTTP *http.Client
}

func (c *Client) addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// call sends one request and decodes the JSON answer into out (nil: ignore).
func (c *Client) call(ctx context.Context, method, op string, q url.Values, out any) error {
	u := url.URL{Scheme: "http", Host: c.addr(), Path: apiPrefix + op, RawQuery: q.Encode()}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return err
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("Failed to connect to '%s' - ConnectException: 'Connection refused'.", c.addr())
		}
		return fmt.Errorf("Failed to connect to '%s' - %v.", c.addr(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var eb errorBody
		if json.Unmarshal(body, &eb) == nil && eb.Error != "" {
			return errors.New(eb.Error)
		}
		if resp.StatusCode == http.StatusNotFound {
			return fmt.Errorf("'%s' is not a cqld admin port (HTTP 404 for %s)", c.addr(), u.Path)
		}
		return fmt.Errorf("HTTP %s from %s", resp.Status, c.addr())
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decoding the answer of %s: %w", c.addr(), err)
	}
	return nil
}

func tableQuery(keyspace string, tables []string) url.Values {
	q := url.Values{}
	if keyspace != "" {
		q.Set("keyspace", keyspace)
	}
	for _, t := range tables {
		q.Add("table", t)
	}
	return q
}

// TraceProbability returns the probability of tracing a request that did
// not ask for it.
func (c *Client) TraceProbability(ctx context.Context) (float64, error) {
	var tp TraceProbability
	err := c.call(ctx, http.MethodGet, "traceprobability", nil, &tp)
	return tp.Probability, err
}

// SetTraceProbability sets the probability of tracing a request that did
// not ask for it.
func (c *Client) SetTraceProbability(ctx context.Context, p float64) error {
	return c.call(ctx, http.MethodPost, "traceprobability", url.Values{"probability": {strconv.FormatFloat(p, 'g', -1, 64)}}, nil)
}

// Info returns the node's information.
func (c *Client) Info(ctx context.Context) (*Info, error) {
	var i Info
	return &i, c.call(ctx, http.MethodGet, "info", nil, &i)
}

// TableStats returns the statistics of the tables (every table of keyspace
// when tables is empty, every table when keyspace is "").
func (c *Client) TableStats(ctx context.Context, keyspace string, tables ...string) ([]TableStats, error) {
	var ts []TableStats
	return ts, c.call(ctx, http.MethodGet, "tablestats", tableQuery(keyspace, tables), &ts)
}

// TableHistograms returns the histograms of one table.
func (c *Client) TableHistograms(ctx context.Context, keyspace, table string) (*Histograms, error) {
	var h Histograms
	return &h, c.call(ctx, http.MethodGet, "tablehistograms", tableQuery(keyspace, []string{table}), &h)
}

// Flush flushes memtables.
func (c *Client) Flush(ctx context.Context, keyspace string, tables ...string) error {
	return c.call(ctx, http.MethodPost, "flush", tableQuery(keyspace, tables), nil)
}

// Compact flushes and compacts the tables.
func (c *Client) Compact(ctx context.Context, keyspace string, tables ...string) error {
	return c.call(ctx, http.MethodPost, "compact", tableQuery(keyspace, tables), nil)
}

// GarbageCollect purges tombstones older than gc_grace_seconds and
// compacts.
func (c *Client) GarbageCollect(ctx context.Context, keyspace string, tables ...string) error {
	return c.call(ctx, http.MethodPost, "garbagecollect", tableQuery(keyspace, tables), nil)
}

// Drain stops the node accepting clients and flushes.
func (c *Client) Drain(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "drain", nil, nil)
}
