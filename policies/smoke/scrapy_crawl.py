# Smoke test: Scrapy crawls for real: a CrawlerProcess with a minimal settings object runs the
# Twisted reactor and a spider that parses a page from a `data:` URL (no network). scrapy 2.8
# under Twisted 23.8 or later imports fine and fails here (the reactor has no `_handleSignals`).
# The reactor is left to Scrapy to install, as `scrapy crawl` does: importing
# `twisted.internet.reactor` first installs the default one, which Scrapy 2.13 and later refuse
# ("The installed reactor ... does not match the requested one": their default is asyncio's).
import sys
from importlib.metadata import version

import scrapy
from scrapy.crawler import CrawlerProcess

items = []


class Smoke(scrapy.Spider):
    name = "planner_smoke"
    start_urls = [
        "data:text/html,<html><body><h1>planner</h1><a href='x'>x</a></body></html>"
    ]

    def parse(self, response):
        item = {"h1": response.css("h1::text").get(), "links": len(response.css("a"))}
        items.append(item)
        yield item


process = CrawlerProcess(
    settings={
        "LOG_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    }
)
crawler = process.create_crawler(Smoke)
process.crawl(crawler)
process.start()
if crawler.stats.get_value("log_count/ERROR") or getattr(crawler.stats, "get_value")(
    "spider_exceptions"
):
    sys.exit("the crawl logged errors: %r" % (crawler.stats.get_stats(),))
assert items == [{"h1": "planner", "links": 1}], "the crawl yielded %r" % (items,)
print(
    "Scrapy %s on Twisted %s: a crawl through CrawlerProcess"
    % (version("scrapy"), version("twisted"))
)
