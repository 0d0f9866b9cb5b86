/**
 * The gateway's TLS material (PEM files, SGLang's flags): the HTTPS listener's certificate, and the client certificate
 * and trusted CAs of every client that calls workers ({@code TlsSettings}).
 */
package dev.caravan.processors.tls;
