package io.tide.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The web console in real headless Chromium (Debian's chromium and chromium-driver, which .ci/run installs), driven by
 * Selenium: it signs in, its charts move under load, a key is created, read, edited and deleted in the browser, the
 * command box runs a command, and the slow log and client views work. A screenshot of the loaded overview is kept in
 * target/console-screenshot.png.
 */
class ConsoleBrowserTest {

    private static final String PASS = "console-pass";
    private static Server tide;
    private static int admin;
    private static ChromeDriverService service;
    private static ChromeDriver browser;
    private static WebDriverWait wait;

    static String existing(String... candidates) {
        for (String c : candidates) if (new File(c).canExecute()) return c;
        return null;
    }

    @BeforeAll
    static void start() throws Exception {
        String chrome = existing("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome");
        String driver = existing("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");
        String missing = "chromium and chromium-driver are not installed (.ci/run installs them)";
        if (System.getenv("CI") != null) assertThat(chrome != null && driver != null).as(missing).isTrue();
        org.junit.jupiter.api.Assumptions.assumeTrue(chrome != null && driver != null, missing);
        admin = RealRedis.freePort();
        tide = TestServers.start(2, "--admin-port", Integer.toString(admin), "--requirepass", PASS);
        service = new ChromeDriverService.Builder().usingDriverExecutable(new File(driver)).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chrome);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1100", "--user-data-dir=" + Files.createTempDirectory("tide-chromium"));
        browser = new ChromeDriver(service, options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (browser != null) browser.quit();
        if (service != null) service.stop();
        if (tide != null) tide.close();
    }

    private static Jedis jedis() {
        return new Jedis(new HostAndPort("127.0.0.1", tide.port()),
                DefaultJedisClientConfig.builder().password(PASS).clientName("console-test").build());
    }

    private static WebElement id(String id) {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(By.id(id)));
    }

    private static Object js(String script) {
        return ((JavascriptExecutor) browser).executeScript(script);
    }

    private static void signIn() {
        browser.get("http://127.0.0.1:" + admin + "/ui/");
        wait.until(d -> !(Boolean) js("return document.getElementById('login').hidden")
                || !(Boolean) js("return document.getElementById('views').hidden"));
        if (!(Boolean) js("return document.getElementById('login').hidden")) {
            id("login-pass").sendKeys(PASS);
            id("login-submit").click();
        }
        wait.until(d -> d.findElement(By.id("views")).isDisplayed());
        assertThat(browser.findElement(By.id("login")).isDisplayed()).isFalse();
    }

    private static void tab(String name) {
        id("tab-" + name).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("view-" + name)));
    }

    @Test
    void signsIn_andTheChartsFollowTheLoad() throws Exception {
        browser.get("http://127.0.0.1:" + admin + "/ui/");
        js("sessionStorage.clear()");
        browser.navigate().refresh();
        id("login-pass").sendKeys("wrong");
        id("login-submit").click();
        wait.until(ExpectedConditions.textToBe(By.id("login-error"), "wrong user or password"));
        id("login-pass").clear();
        signIn();
        tab("overview");
        AtomicBoolean run = new AtomicBoolean(true);
        Thread load = new Thread(() -> {
            try (Jedis j = jedis()) {
                int i = 0;
                while (run.get()) j.set("load:" + (i++ % 5000), "v".repeat(64));
            }
        });
        load.start();
        try {
            // The throughput chart's last points show the load; the latency series has figures; keys grow.
            wait.until(d -> {
                Object last = js("const s = window.tide.series.ops; return s.length >= 3 ? s[s.length - 1] : 0");
                return ((Number) last).longValue() > 100;
            });
            wait.until(d -> js("const s = window.tide.series.p99; return s.length ? s[s.length - 1] : null") != null);
            wait.until(d -> Long.parseLong(id("keys-value").getText()) > 100);
            assertThat(Long.parseLong(id("ops-value").getText().replace(",", ""))).isPositive();
            // uPlot drew its canvases, and the per-shard table has both shards with a rate.
            assertThat(browser.findElements(By.cssSelector("#chart-ops canvas"))).isNotEmpty();
            assertThat(browser.findElements(By.cssSelector("#shards-table tbody tr"))).hasSize(2);
            Thread.sleep(1500); // a few more points, for the picture
            Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
            Path kept = Path.of("target", "console-screenshot.png");
            Files.createDirectories(kept.getParent());
            Files.copy(shot, kept, StandardCopyOption.REPLACE_EXISTING);
            assertThat(Files.size(kept)).isGreaterThan(10_000);
        } finally {
            run.set(false);
            load.join();
        }
    }

    @Test
    void keyBrowser_createsReadsEditsAndDeletes() throws Exception {
        signIn();
        tab("keys");
        try (Jedis j = jedis()) {
            j.del("console:s", "console:h");
            // Create a string with a TTL.
            id("new-key").click();
            id("create-name").sendKeys("console:s");
            new Select(id("create-type")).selectByVisibleText("string");
            id("create-value").sendKeys("hello");
            id("create-ttl").sendKeys("500");
            id("create-submit").click();
            wait.until(ExpectedConditions.textToBe(By.id("key-message"), "created console:s"));
            assertThat(j.get("console:s")).isEqualTo("hello");
            assertThat(j.ttl("console:s")).isBetween(1L, 500L);
            // Read and edit it (the TTL stays).
            assertThat(id("string-value").getAttribute("value")).isEqualTo("hello");
            id("string-value").clear();
            id("string-value").sendKeys("edited in the browser");
            id("string-save").click();
            wait.until(d -> "edited in the browser".equals(j.get("console:s")));
            assertThat(j.ttl("console:s")).isPositive();
            id("ttl-persist").click();
            wait.until(ExpectedConditions.textToBe(By.id("key-ttl"), "none"));
            assertThat(j.ttl("console:s")).isEqualTo(-1);
            // A hash written elsewhere: found by a scan with a pattern and a type, its fields shown, one added.
            j.hset("console:h", "f1", "v1");
            id("scan-pattern").clear();
            id("scan-pattern").sendKeys("console:*");
            new Select(id("scan-type")).selectByVisibleText("hash");
            id("scan-submit").click();
            wait.until(d -> d.findElements(By.cssSelector("#key-list li")).size() == 1);
            WebElement li = browser.findElement(By.cssSelector("#key-list li"));
            assertThat(li.getText()).isEqualTo("console:h");
            li.click();
            wait.until(ExpectedConditions.textToBe(By.id("key-type"), "hash"));
            List<WebElement> cells = browser.findElements(By.cssSelector("#value-editor tbody tr:first-child td"));
            assertThat(cells.get(0).getText()).isEqualTo("f1");
            assertThat(cells.get(1).findElement(By.tagName("input")).getAttribute("value")).isEqualTo("v1");
            List<WebElement> addRow = browser.findElements(By.cssSelector("#value-editor tbody tr:last-child input"));
            addRow.get(0).sendKeys("f2");
            addRow.get(1).sendKeys("v2");
            browser.findElement(By.xpath("//div[@id='value-editor']//tr[last()]//button[text()='Add']")).click();
            wait.until(d -> "v2".equals(j.hget("console:h", "f2")));
            // Delete it.
            wait.until(d -> d.findElements(By.cssSelector("#value-editor tbody tr")).size() == 3);
            id("key-delete").click();
            wait.until(ExpectedConditions.textToBe(By.id("key-message"), "deleted console:h"));
            assertThat(j.exists("console:h")).isFalse();
            assertThat(browser.findElements(By.cssSelector("#key-list li"))).isEmpty();
            j.del("console:s");
        }
    }

    @Test
    void commandBox_slowlogAndClients() throws Exception {
        signIn();
        try (Jedis j = jedis(); Jedis victim = jedis()) {
            j.configSet("slowlog-log-slower-than", "0");
            j.slowlogReset();
            tab("command");
            id("command-input").sendKeys("SET \"cmd key\" \"a b\"");
            id("command-submit").click();
            wait.until(d -> id("command-output").getText().endsWith("OK"));
            assertThat(j.get("cmd key")).isEqualTo("a b");
            id("command-input").sendKeys("LPUSH \"cmd key\" x");
            id("command-submit").click();
            wait.until(d -> id("command-output").getText().contains("(error) WRONGTYPE"));
            id("command-input").sendKeys("HGETALL nosuch");
            id("command-input").sendKeys(org.openqa.selenium.Keys.ENTER);
            wait.until(d -> id("command-output").getText().endsWith("(empty hash)"));
            // The slow log shows the console's commands, by the console's client.
            tab("slowlog");
            wait.until(d -> d.findElements(By.xpath("//table[@id='slowlog-table']//td[text()='SET cmd key a b']"))
                    .size() == 1);
            j.configSet("slowlog-log-slower-than", "10000");
            // Kill a client from the client list.
            victim.clientSetname("victim");
            tab("clients");
            WebElement kill = wait.until(ExpectedConditions.elementToBeClickable(
                    By.xpath("//table[@id='clients-table']//tr[td[text()='victim']]//button[text()='Kill']")));
            kill.click();
            wait.until(d -> d.findElements(By.xpath("//table[@id='clients-table']//td[text()='victim']")).isEmpty());
            assertThatThrownBy(victim::ping).isInstanceOf(redis.clients.jedis.exceptions.JedisConnectionException.class);
            j.del("cmd key");
        }
    }
}
