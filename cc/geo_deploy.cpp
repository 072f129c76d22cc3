// The deployment file's loader (geo_deploy_load, cc/geo.h): a TOML file, config/geo/*.toml,
// read with cpptoml (Debian's libcpptoml-dev, header-only) into struct geo_deploy. Every
// problem is one line, "FILE: reason"; no exception crosses into C.
//
// The format: keys at the top level only (any other key, or a table, is an error).
//   # comment: what this topology is, where the numbers come from
//   datacenters = ["hangzhou", "san-francisco", "frankfurt"]
//                           # required: 1..GEO_MAX_DCS names, unique, non-empty, shorter
//                           # than GEO_NAME_MAX characters, no control characters
//   ours = []               # optional, default []: datacenters whose delays are ours (not
//                           # from the source the comment names)
//   one_way_ms = [          # required: one-way delay from datacenter i (row i) to j
//     [0.0, 72.5, 115.0],   # (column j), milliseconds; n x n, symmetric, diagonal 0, the
//     [72.5, 0.0, 72.5],    # rest above 0
//     [115.0, 72.5, 0.0],
//   ]
//   intra_dc_ms = 0.25      # optional, default 0.25: one-way delay inside a datacenter;
//                           # above 0 and below the smallest one_way_ms between two
//   jitter_ms = 0           # optional, default 0 (>= 0): each message + uniform [0, jitter]
//   shards = 3              # optional, default 3: 1..GEO_MAX_SHARDS
//   leaders = ["hangzhou", "san-francisco", "frankfurt"]
//                           # optional: shard s's leader's datacenter, `shards` names;
//                           # default round-robin, shard s in datacenter s % n
// Numbers (finite) may be integers or floats. But cpptoml follows TOML 0.5, one type per
// array: a row that starts with an integer may not hold a float ([0, 72.5] is refused,
// "Arrays must be homogeneous"; one that starts with a float may hold integers), so a row
// with a fraction in it is best written in floats only ([0.0, 72.5, 115.0]). A refused
// file leaves *d as it was.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <cpptoml.h>

extern "C" {
#include "cc/cc.h" // enum rc, which cc/geo.h names
#include "cc/geo.h"
}

namespace {

// A problem with the file: the reason, without the file's name.
struct bad_file {
    std::string why;
};

[[noreturn]] void fail(const std::string &why)
{
    throw bad_file{why};
}

std::string num(double x)
{
    char b[32];
    std::snprintf(b, sizeof(b), "%g", x);
    return b;
}

std::string quoted(const std::string &s)
{
    return "'" + s + "'";
}

const char *const known_keys[] = {"datacenters", "ours",   "one_way_ms", "intra_dc_ms",
                                  "jitter_ms",   "shards", "leaders"};

std::string read_all(const char *path)
{
    std::unique_ptr<FILE, int (*)(FILE *)> f(std::fopen(path, "rb"), std::fclose);
    if (!f)
        fail(std::string("cannot open: ") + std::strerror(errno));
    std::string text;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f.get())) > 0)
        text.append(buf, n);
    if (std::ferror(f.get()))
        fail(std::string("cannot read: ") + std::strerror(errno));
    return text;
}

// The strings of array `key`.
std::vector<std::string> strings(const cpptoml::table &t, const std::string &key)
{
    std::shared_ptr<cpptoml::array> a = t.get(key)->as_array();
    if (!a)
        fail(key + ": not an array of strings");
    std::vector<std::string> v;
    for (const std::shared_ptr<cpptoml::base> &e : *a) {
        std::shared_ptr<cpptoml::value<std::string>> s = e->as<std::string>();
        if (!s)
            fail(key + ": not an array of strings");
        v.push_back(s->get());
    }
    return v;
}

// A finite number (an integer or a float); `what` names it in a message.
double number(const std::shared_ptr<cpptoml::base> &b, const std::string &what)
{
    std::shared_ptr<cpptoml::value<double>> v = b->as<double>(); // integers too
    if (!v)
        fail(what + ": not a number");
    if (!std::isfinite(v->get()))
        fail(what + " = " + num(v->get()) + ": not a finite number");
    return v->get();
}

// The datacenter named `name`, as listed in `key`.
int dc_index(const geo_deploy &d, const std::string &key, const std::string &name)
{
    for (int i = 0; i < d.ndcs; i++)
        if (name == d.dc_name[i])
            return i;
    fail(key + ": " + quoted(name) + " is not a datacenter");
}

void load_datacenters(const cpptoml::table &t, geo_deploy &d)
{
    if (!t.contains("datacenters"))
        fail("missing key datacenters");
    std::vector<std::string> names = strings(t, "datacenters");
    if (names.empty() || names.size() > GEO_MAX_DCS)
        fail("datacenters: " + std::to_string(names.size()) + " names, want 1 to " +
             std::to_string(GEO_MAX_DCS));
    for (size_t i = 0; i < names.size(); i++) {
        const std::string &s = names[i];
        std::string which = "datacenters: name " + std::to_string(i + 1);
        if (s.empty())
            fail(which + " is empty");
        if (s.size() >= GEO_NAME_MAX)
            fail(which + " has " + std::to_string(s.size()) + " characters, at most " +
                 std::to_string(GEO_NAME_MAX - 1));
        for (unsigned char c : s)
            if (c < 0x20 || c == 0x7f)
                fail(which + " holds a control character");
        for (size_t j = 0; j < i; j++)
            if (names[j] == s)
                fail("datacenters: " + quoted(s) + " is listed twice");
        std::memcpy(d.dc_name[i], s.data(), s.size()); // d is zeroed: NUL-terminated
    }
    d.ndcs = (int)names.size();
}

void load_ours(const cpptoml::table &t, geo_deploy &d)
{
    if (!t.contains("ours"))
        return;
    for (const std::string &s : strings(t, "ours")) {
        int i = dc_index(d, "ours", s);
        if (d.dc_ours[i])
            fail("ours: " + quoted(s) + " is listed twice");
        d.dc_ours[i] = true;
    }
}

void load_delays(const cpptoml::table &t, geo_deploy &d)
{
    if (!t.contains("one_way_ms"))
        fail("missing key one_way_ms");
    std::shared_ptr<cpptoml::array> m = t.get("one_way_ms")->as_array();
    if (!m)
        fail("one_way_ms: not an array of rows");
    size_t n = (size_t)d.ndcs;
    if (m->get().size() != n)
        fail("one_way_ms: " + std::to_string(m->get().size()) + " rows for " + std::to_string(n) +
             " datacenters");
    auto at = [&d](size_t i, size_t j) {
        return std::string("one_way_ms[") + d.dc_name[i] + "][" + d.dc_name[j] + "]";
    };
    for (size_t i = 0; i < n; i++) {
        std::shared_ptr<cpptoml::array> row = m->at(i)->as_array();
        if (!row)
            fail("one_way_ms: row " + std::to_string(i + 1) + " is not an array");
        if (row->get().size() != n)
            fail("one_way_ms: row " + std::to_string(i + 1) + " (" + d.dc_name[i] + ") has " +
                 std::to_string(row->get().size()) + " numbers for " + std::to_string(n) +
                 " datacenters");
        for (size_t j = 0; j < n; j++) {
            double x = number(row->at(j), at(i, j));
            if (x < 0)
                fail(at(i, j) + " = " + num(x) + ": negative");
            if (i == j && x != 0)
                fail(at(i, j) + " = " + num(x) + ": the diagonal must be 0");
            if (i != j && x == 0)
                fail(at(i, j) + " = 0: a delay between datacenters must be above 0");
            d.one_way_ms[i][j] = x;
        }
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (d.one_way_ms[i][j] != d.one_way_ms[j][i])
                fail(at(i, j) + " = " + num(d.one_way_ms[i][j]) + " but " + at(j, i) + " = " +
                     num(d.one_way_ms[j][i]) + ": not symmetric");
}

void load_times(const cpptoml::table &t, geo_deploy &d)
{
    d.intra_ms = t.contains("intra_dc_ms") ? number(t.get("intra_dc_ms"), "intra_dc_ms") : 0.25;
    if (d.intra_ms <= 0)
        fail("intra_dc_ms = " + num(d.intra_ms) + ": must be above 0");
    double lowest = INFINITY;
    for (int i = 0; i < d.ndcs; i++)
        for (int j = 0; j < d.ndcs; j++)
            if (i != j && d.one_way_ms[i][j] < lowest)
                lowest = d.one_way_ms[i][j];
    if (d.intra_ms >= lowest)
        fail("intra_dc_ms = " + num(d.intra_ms) +
             ": must be below the smallest delay between datacenters, " + num(lowest));
    d.jitter_ms = t.contains("jitter_ms") ? number(t.get("jitter_ms"), "jitter_ms") : 0;
    if (d.jitter_ms < 0)
        fail("jitter_ms = " + num(d.jitter_ms) + ": negative");
}

void load_shards(const cpptoml::table &t, geo_deploy &d)
{
    d.nshards = 3;
    if (t.contains("shards")) {
        std::shared_ptr<cpptoml::value<int64_t>> v = t.get("shards")->as<int64_t>();
        if (!v)
            fail("shards: not an integer");
        if (v->get() < 1 || v->get() > GEO_MAX_SHARDS)
            fail("shards = " + std::to_string(v->get()) + ": want 1 to " +
                 std::to_string(GEO_MAX_SHARDS));
        d.nshards = (int)v->get();
    }
    if (!t.contains("leaders")) {
        for (int s = 0; s < d.nshards; s++)
            d.leader_dc[s] = s % d.ndcs;
        return;
    }
    std::vector<std::string> names = strings(t, "leaders");
    if (names.size() != (size_t)d.nshards)
        fail("leaders: " + std::to_string(names.size()) + " names for " +
             std::to_string(d.nshards) + " shards");
    for (int s = 0; s < d.nshards; s++)
        d.leader_dc[s] = dc_index(d, "leaders", names[(size_t)s]);
}

void load(const char *path, geo_deploy &d)
{
    if (std::strlen(path) >= sizeof(d.path))
        fail("path longer than " + std::to_string(sizeof(d.path) - 1) + " characters");
    std::memcpy(d.path, path, std::strlen(path));
    std::istringstream text(read_all(path));
    std::shared_ptr<cpptoml::table> t = cpptoml::parser(text).parse();
    for (const auto &kv : *t) {
        auto is_key = [&kv](const char *k) { return kv.first == k; };
        if (std::none_of(std::begin(known_keys), std::end(known_keys), is_key)) {
            std::string list;
            for (const char *k : known_keys)
                list += (list.empty() ? "" : ", ") + std::string(k);
            fail("unknown key " + quoted(kv.first) + " (known: " + list + ")");
        }
    }
    load_datacenters(*t, d);
    load_ours(*t, d);
    load_delays(*t, d);
    load_times(*t, d);
    load_shards(*t, d);
}

// err = "PATH: why[hint]", on one line (control characters, from names in the file or
// a library's message, become '?').
void report(char *err, unsigned errlen, const char *path, const char *why, const char *hint)
{
    if (errlen == 0)
        return;
    std::snprintf(err, errlen, "%s: %s%s", path, why, hint);
    for (char *p = err; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

} // namespace

extern "C" bool geo_deploy_load(const char *path, struct geo_deploy *d, char *err, unsigned errlen)
{
    try {
        geo_deploy out{};
        load(path, out);
        *d = out;
        return true;
    } catch (const bad_file &e) {
        report(err, errlen, path, e.why.c_str(), "");
    } catch (const cpptoml::parse_exception &e) {
        bool mixed = std::strstr(e.what(), "homogeneous") != nullptr;
        report(err, errlen, path, e.what(),
               mixed ? " (one type per array: write each number of such a row as a float, "
                       "115.0)"
                     : "");
    } catch (const std::bad_alloc &) {
        report(err, errlen, path, "out of memory", "");
    } catch (const std::exception &e) {
        report(err, errlen, path, e.what(), "");
    } catch (...) {
        report(err, errlen, path, "unknown error", "");
    }
    return false;
}
