/* plot_check.c -- is this file a whole PNG / a whole SVG document?
 *
 * gnuplot draws each picture into a temporary file, and gd_plot_write() renames
 * that temporary over NAME.png / NAME.svg only after these checks pass.  The
 * reason: gnuplot can exit 0 and still leave half a picture behind (a full disk,
 * a terminal that died mid-page, a font problem that aborted the SVG), and a
 * picture that merely exists must never count as produced -- the report links
 * it, a reader opens it, and a truncated file is worse than an honest error.
 *
 * What "whole" means here is deliberately structural, not a full decoder:
 *
 *   PNG  the 8-byte signature, an IHDR chunk first with a non-zero size, every
 *        chunk complete with a correct CRC-32, IEND last and nothing after it.
 *        A file cut anywhere fails (the last chunk is short, or IEND is
 *        missing); a flipped byte fails its chunk's CRC.
 *   SVG  text (no NUL bytes) whose root element, after any XML declaration,
 *        comments and DOCTYPE, is <svg, and whose last </svg> is followed only
 *        by more prolog-like material.  A truncated document has no closing
 *        </svg>; a PNG renamed .svg is binary.
 *
 * Both read the whole file into memory: a picture is tens of kilobytes.
 */
#include "analysis/plot.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/results.h"

/* The PNG file signature and chunk framing (PNG spec, sections 5.2 and 5.3). */
static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
#define PNG_CHUNK_OVERHEAD 12      /* length (4) + type (4) + CRC (4) */
#define PNG_IHDR_BYTES 13
#define PNG_MAX_CHUNK_BYTES 0x7fffffffu /* lengths are limited to 2^31 - 1 */

static uint32_t read_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* CRC-32 as PNG uses it (ISO 3309, reflected polynomial 0xedb88320), bit by
 * bit: a picture is tens of kilobytes, a table would buy nothing. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
    }
    return crc;
}

int gd_plot_check_png(const char *path, gd_err *err)
{
    size_t size;
    char *text = gd_read_file(path, &size, err);
    if (!text)
        return -1;
    const unsigned char *b = (const unsigned char *)text;
    int rc = -1;
    if (size < sizeof png_signature || memcmp(b, png_signature, sizeof png_signature) != 0) {
        gd_fail(err, "%s: not a PNG file (no PNG signature)", path);
        goto out;
    }
    size_t pos = sizeof png_signature;
    for (int chunk = 0;; chunk++) {
        if (size - pos < PNG_CHUNK_OVERHEAD) {
            gd_fail(err, "%s: truncated PNG (chunk %d incomplete, no IEND)", path, chunk);
            goto out;
        }
        uint32_t len = read_be32(b + pos);
        const unsigned char *type = b + pos + 4;
        if (len > PNG_MAX_CHUNK_BYTES || size - pos - PNG_CHUNK_OVERHEAD < len) {
            gd_fail(err, "%s: truncated PNG (chunk %d '%.4s' needs %u bytes)", path, chunk,
                    (const char *)type, len);
            goto out;
        }
        if (chunk == 0 && (memcmp(type, "IHDR", 4) != 0 || len != PNG_IHDR_BYTES ||
                           read_be32(type + 4) == 0 || read_be32(type + 8) == 0)) {
            gd_fail(err, "%s: not a PNG file (no IHDR chunk with a size first)", path);
            goto out;
        }
        uint32_t crc = crc32_update(0xffffffffu, type, 4 + (size_t)len) ^ 0xffffffffu;
        if (crc != read_be32(type + 4 + len)) {
            gd_fail(err, "%s: corrupt PNG (bad CRC in chunk %d '%.4s')", path, chunk,
                    (const char *)type);
            goto out;
        }
        pos += PNG_CHUNK_OVERHEAD + len;
        if (memcmp(type, "IEND", 4) == 0)
            break;
    }
    if (pos != size) {
        gd_fail(err, "%s: %zu bytes after the PNG's IEND chunk", path, size - pos);
        goto out;
    }
    rc = 0;
out:
    free(text);
    return rc;
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

/* Skips XML declarations, processing instructions, comments and a DOCTYPE
 * (with an internal subset) before the root element.  NULL if unterminated. */
static const char *skip_prolog(const char *p)
{
    for (;;) {
        p = skip_space(p);
        const char *end;
        if (strncmp(p, "<?", 2) == 0) {
            end = strstr(p, "?>");
            if (!end)
                return NULL;
            p = end + 2;
        } else if (strncmp(p, "<!--", 4) == 0) {
            end = strstr(p, "-->");
            if (!end)
                return NULL;
            p = end + 3;
        } else if (strncmp(p, "<!DOCTYPE", 9) == 0) {
            const char *gt = strchr(p, '>'), *bracket = strchr(p, '[');
            if (bracket && gt && bracket < gt) {
                const char *close = strstr(bracket, "]");
                gt = close ? strchr(close, '>') : NULL;
            }
            if (!gt)
                return NULL;
            p = gt + 1;
        } else {
            return p;
        }
    }
}

int gd_plot_check_svg(const char *path, gd_err *err)
{
    size_t size;
    char *text = gd_read_file(path, &size, err);
    if (!text)
        return -1;
    int rc = -1;
    const char *p = text;
    static const char bom[] = "\xef\xbb\xbf";
    if (strlen(text) != size) {
        gd_fail(err, "%s: not an SVG document (binary data)", path);
        goto out;
    }
    if (strncmp(p, bom, sizeof bom - 1) == 0)
        p += sizeof bom - 1;
    p = skip_prolog(p);
    if (!p || strncmp(p, "<svg", 4) != 0 || !strchr(" \t\r\n>", p[4]) || !p[4]) {
        gd_fail(err, "%s: not an SVG document (root element is not <svg>)", path);
        goto out;
    }
    const char *last = NULL;
    for (const char *q = strstr(p, "</svg"); q; q = strstr(q + 1, "</svg"))
        last = q;
    const char *tail = last ? skip_space(last + 5) : NULL;
    if (!tail || *tail != '>') {
        gd_fail(err, "%s: not an SVG document (no closing </svg>: truncated?)", path);
        goto out;
    }
    tail = skip_prolog(tail + 1);
    if (!tail || *tail) {
        gd_fail(err, "%s: not an SVG document (content after </svg>)", path);
        goto out;
    }
    rc = 0;
out:
    free(text);
    return rc;
}
