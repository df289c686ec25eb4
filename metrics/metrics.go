// Package metrics is docsapi's Prometheus registry: HTTP requests by route
// pattern and status, errors by code, database pools and write
// transactions, and background job queues. Each server owns one Registry
// (no global state, so tests can run many servers in one process).
//
// Families with background work expose it through the same Registry:
//
//	s.Metrics.Queue("deliveries", func(ctx context.Context) (int, error) { return db.PendingDeliveries(ctx) })
//	s.Metrics.ObserveJob("deliveries", time.Since(start), err)
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// latencyBuckets reach from half a millisecond (cached reads) to ten
// seconds (imports, large writes).
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Registry holds every docsapi metric.
type Registry struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	errors    *prometheus.CounterVec
	limited   *prometheus.CounterVec
	writeWait prometheus.Histogram
	writeHold *prometheus.HistogramVec
	commit    prometheus.Histogram
	batch     prometheus.Histogram
	jobs      *prometheus.HistogramVec

	queues *queueCollector

	// series caches each request label set's counter and histogram:
	// WithLabelValues hashes the labels on every call.
	seriesMu sync.RWMutex
	series   map[requestLabels]requestSeries
}

type requestLabels struct {
	method, route string
	code          int
}

type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// New builds a Registry with the Go runtime and process collectors.
func New() *Registry {
	m := &Registry{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "docsapi_http_requests_total",
			Help: "HTTP requests answered, by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "docsapi_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by method, route pattern and status.",
			Buckets: latencyBuckets,
		}, []string{"method", "route", "status"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "docsapi_errors_total",
			Help: "Errors answered, by transport (http: error statuses of any route; graphql: entries of a GraphQL errors list) and code (BAD_REQUEST, NOT_FOUND, ...).",
		}, []string{"transport", "code"}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "docsapi_rate_limited_total",
			Help: "Requests refused with 429, by limiter (token or address).",
		}, []string{"limiter"}),
		writeWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "docsapi_db_write_wait_seconds",
			Help:    "Time write transactions waited for the single writer connection.",
			Buckets: latencyBuckets,
		}),
		writeHold: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "docsapi_db_write_duration_seconds",
			Help:    "Time write transactions held the writer, durable commit included, by outcome (commit or error).",
			Buckets: latencyBuckets,
		}, []string{"outcome"}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "docsapi_db_commit_duration_seconds",
			Help:    "Time the COMMIT of committed write transactions took (part of docsapi_db_write_duration_seconds): on SQLite the WAL frames' writes and the fsync; the rest of the hold is the statements.",
			Buckets: latencyBuckets,
		}),
		batch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "docsapi_db_commit_batch_size",
			Help:    "Write transactions made durable by one COMMIT (group commit: the writes that queued while the previous COMMIT ran; 1 with --group-commit=false).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64},
		}),
		jobs: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "docsapi_job_duration_seconds",
			Help:    "Background job runs, by queue and outcome (ok or error).",
			Buckets: latencyBuckets,
		}, []string{"queue", "outcome"}),
		queues: &queueCollector{},
		series: map[requestLabels]requestSeries{},
	}
	m.reg.MustRegister(m.requests, m.latency, m.errors, m.limited, m.writeWait, m.writeHold, m.commit, m.batch, m.jobs, m.queues,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Register adds a family's own collector.
func (m *Registry) Register(c prometheus.Collector) error { return m.reg.Register(c) }

// statusText avoids formatting the status of every request.
var statusText = func() (s [600]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

func status(code int) string {
	if code >= 0 && code < len(statusText) {
		return statusText[code]
	}
	return strconv.Itoa(code)
}

// ObserveRequest records one answered request. route is the router's
// pattern ("/v1/orgs/{organizationId}"), never the raw path, so the number
// of series stays bounded.
func (m *Registry) ObserveRequest(method, route string, code int, d time.Duration) {
	k := requestLabels{method, route, code}
	m.seriesMu.RLock()
	s, ok := m.series[k]
	m.seriesMu.RUnlock()
	if !ok {
		st := status(code)
		s = requestSeries{m.requests.WithLabelValues(method, route, st), m.latency.WithLabelValues(method, route, st)}
		m.seriesMu.Lock()
		if len(m.series) < 10_000 { // label sets are bounded (route patterns); this is a guard
			m.series[k] = s
		}
		m.seriesMu.Unlock()
	}
	s.count.Inc()
	s.latency.Observe(d.Seconds())
}

// CountError records one error answered through transport ("http" or
// "graphql") with its symbolic code.
func (m *Registry) CountError(transport, code string) {
	m.errors.WithLabelValues(transport, code).Inc()
}

// CountRateLimited records one 429 of limiter ("token" or "address").
func (m *Registry) CountRateLimited(limiter string) { m.limited.WithLabelValues(limiter).Inc() }

// ObserveWrite records one write transaction (see storage.WriteObserver).
func (m *Registry) ObserveWrite(wait, hold, commit time.Duration, err error) {
	m.writeWait.Observe(wait.Seconds())
	outcome := "commit"
	if err != nil {
		outcome = "error"
	} else {
		m.commit.Observe(commit.Seconds())
	}
	m.writeHold.WithLabelValues(outcome).Observe(hold.Seconds())
}

// ObserveBatch records the members of one write transaction (storage's
// group commit: DB.ObserveBatches).
func (m *Registry) ObserveBatch(members int) { m.batch.Observe(float64(members)) }

// ObservePools exposes connection pool statistics read at scrape time;
// stats returns each pool by name ("write", "read").
func (m *Registry) ObservePools(stats func() map[string]sql.DBStats) {
	m.reg.MustRegister(&poolCollector{stats: stats})
}

// Queue exposes the depth of a background job queue as
// docsapi_job_queue_depth{queue=name}, read at scrape time (depth may run a
// COUNT query: scrapes are rare, requests never pay for it).
func (m *Registry) Queue(name string, depth func(ctx context.Context) (int, error)) {
	m.queues.mu.Lock()
	defer m.queues.mu.Unlock()
	m.queues.queues = append(m.queues.queues, queue{name, depth})
}

// ObserveJob records one run of a background job of queue.
func (m *Registry) ObserveJob(queue string, d time.Duration, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.jobs.WithLabelValues(queue, outcome).Observe(d.Seconds())
}

type queue struct {
	name  string
	depth func(ctx context.Context) (int, error)
}

type queueCollector struct {
	mu     sync.Mutex
	queues []queue
}

var queueDepth = prometheus.NewDesc("docsapi_job_queue_depth", "Jobs waiting in a background queue.", []string{"queue"}, nil)

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queueDepth }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	qs := append([]queue(nil), c.queues...)
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, q := range qs {
		n, err := q.depth(ctx)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(queueDepth, err)
			continue
		}
		ch <- prometheus.MustNewConstMetric(queueDepth, prometheus.GaugeValue, float64(n), q.name)
	}
}

type poolCollector struct {
	stats func() map[string]sql.DBStats
}

var (
	poolMax      = prometheus.NewDesc("docsapi_db_pool_max_open_connections", "Largest number of open connections of the pool.", []string{"pool"}, nil)
	poolOpen     = prometheus.NewDesc("docsapi_db_pool_open_connections", "Open connections of the pool.", []string{"pool"}, nil)
	poolInUse    = prometheus.NewDesc("docsapi_db_pool_in_use_connections", "Connections of the pool in use.", []string{"pool"}, nil)
	poolIdle     = prometheus.NewDesc("docsapi_db_pool_idle_connections", "Idle connections of the pool.", []string{"pool"}, nil)
	poolWaits    = prometheus.NewDesc("docsapi_db_pool_wait_count_total", "Times a caller waited for a connection of the pool.", []string{"pool"}, nil)
	poolWaitTime = prometheus.NewDesc("docsapi_db_pool_wait_seconds_total", "Total time callers waited for a connection of the pool.", []string{"pool"}, nil)
)

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolMax, poolOpen, poolInUse, poolIdle, poolWaits, poolWaitTime} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	for name, s := range c.stats() {
		ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(s.MaxOpenConnections), name)
		ch <- prometheus.MustNewConstMetric(poolOpen, prometheus.GaugeValue, float64(s.OpenConnections), name)
		ch <- prometheus.MustNewConstMetric(poolInUse, prometheus.GaugeValue, float64(s.InUse), name)
		ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(s.Idle), name)
		ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(s.WaitCount), name)
		ch <- prometheus.MustNewConstMetric(poolWaitTime, prometheus.CounterValue, s.WaitDuration.Seconds(), name)
	}
}
